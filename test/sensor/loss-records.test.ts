import assert from 'node:assert/strict';
import { decodeSensorBatch } from '../../src/sensor/decode-records.js';
import { encodeLossBatch, lossKinds, lossReport } from '../../src/sensor/loss-records.js';
import { batchHeaderBytes } from '../../src/sensor/records.js';
import { reportedGap } from '../../src/telemetry/reported-gap.js';

describe('sensor loss reports', function () {
  const nowNs = 1_790_000_000_123_456_789n;

  it('become capture_loss events of no process, timed when they were reported', function () {
    const { events, rejected } = decodeSensorBatch(
      encodeLossBatch(
        [
          { kind: 'ring_full', probe: 'file_open', count: 1234 },
          { kind: 'truncated', probe: 'exec', count: 2 },
          { kind: 'backpressure', probe: 'sensor', count: 4096 },
        ],
        nowNs,
      ),
    );
    assert.equal(rejected, 0);
    assert.deepEqual(
      events.map((event) => [
        event.type,
        event.source,
        event.timeNs,
        event.pid,
        event.comm,
        event.cgroupId,
        event.attrs,
      ]),
      [
        [
          'capture_loss',
          'provd_sensor',
          nowNs,
          null,
          null,
          null,
          { loss: 'sensor_ring_full', probe: 'file_open', lost_events: 1234 },
        ],
        [
          'capture_loss',
          'provd_sensor',
          nowNs,
          null,
          null,
          null,
          { loss: 'sensor_truncated', probe: 'exec', truncated_events: 2 },
        ],
        [
          'capture_loss',
          'provd_sensor',
          nowNs,
          null,
          null,
          null,
          { loss: 'sensor_backpressure', probe: 'sensor', lost_events: 4096 },
        ],
      ],
    );
  });

  it('become coverage gaps of the sensor, with the records lost', function () {
    const [ringFull, truncated] = decodeSensorBatch(
      encodeLossBatch(
        [
          { kind: 'ring_full', probe: 'connect', count: 7 },
          { kind: 'truncated', probe: 'exec', count: 3 },
        ],
        nowNs,
      ),
    ).events;
    assert.deepEqual(reportedGap(ringFull!, 'b1.0'), {
      eventId: 'b1.0',
      source: 'provd_sensor',
      kind: 'sensor_ring_full',
      span: 'point',
      timeNs: nowNs,
      lostEvents: 7,
      cgroup: '',
    });
    assert.equal(reportedGap(truncated!, 'b1.1'), undefined, 'a cut record is kept, not lost: no gap');
    assert.equal(truncated!.attrs.truncated_events, 3, 'counted instead');
  });

  it('carries every kind of loss the sensor counts to a coverage gap of its own kind, filtered, truncated and unparsed TLS to none', function () {
    const { events, errors } = decodeSensorBatch(
      encodeLossBatch(
        lossKinds.map((kind) => ({ kind, probe: 'p', count: 1 })),
        nowNs,
      ),
    );
    assert.deepEqual(errors, []);
    assert.deepEqual(
      events.map((event, index) => reportedGap(event, `b1.${index}`)?.kind),
      lossKinds.map((kind) =>
        ['filtered', 'truncated', 'tls_unparsed'].includes(kind) ? undefined : `sensor_${kind}`,
      ),
    );
    const filtered = events[lossKinds.indexOf('filtered')]!;
    assert.equal(filtered.attrs.filtered_events, 1, 'left out on purpose: counted, not lost');
  });

  it('keeps what a report says was lost when a probe and a count do not say it', function () {
    const [event] = decodeSensorBatch(
      encodeLossBatch(
        [{ kind: 'tls_unsupported', probe: 'tls_go', count: 1, detail: '/usr/bin/app: Go 1.19' }],
        nowNs,
      ),
    ).events;
    assert.deepEqual(event?.attrs, {
      loss: 'sensor_tls_unsupported',
      probe: 'tls_go',
      detail: '/usr/bin/app: Go 1.19',
      lost_events: 1,
    });
  });

  it('rejects a report of a kind it does not know instead of guessing', function () {
    const batch = encodeLossBatch([{ kind: 'ring_full', probe: 'exec', count: 1 }], nowNs);
    new DataView(batch.buffer).setUint32(batchHeaderBytes + lossReport.kind, 99, true);
    const { events, errors } = decodeSensorBatch(batch);
    assert.deepEqual(events, []);
    assert.equal(errors[0]?.message, 'record 1: loss report of kind 99');
  });
});
