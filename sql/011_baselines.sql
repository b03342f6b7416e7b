-- placeholder: the baseline helper's migration 011 (baselines) takes this number; nothing here.
SELECT 1;
