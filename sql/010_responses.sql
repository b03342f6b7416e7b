-- placeholder: the lead's migration 010 (responses) takes this number; nothing here.
SELECT 1;
