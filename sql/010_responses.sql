-- 010: reserved for the responses migration (issue 9, lead). This placeholder only keeps the
-- numbering whole on the baselines branch; the lead's 010_responses.sql replaces it at merge.
SELECT 1;
