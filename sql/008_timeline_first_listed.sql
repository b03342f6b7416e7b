-- 008: each process row of the causality rollup keeps its first events also as the JSON text the
-- view lists them from (their listed fields; time_ns as a decimal string): writing it per request
-- was most of what the view cost DuckDB (src/telemetry/timeline/process-rollup.ts keeps it).

ALTER TABLE timeline_processes ADD COLUMN first_listed VARCHAR;

UPDATE timeline_processes SET first_listed = CAST(to_json(list_transform(first_events, e -> struct_pack(
  id := e.id, time_ns := CAST(e.time_ns AS VARCHAR), type := e.type, evidence_level := e.evidence_level,
  pid := e.pid, tgid := e.tgid, comm := e.comm, attrs := e.attrs))) AS VARCHAR);
