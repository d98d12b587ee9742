-- The rules version each game is played under (engine RulesVersion). Every game stored so
-- far was dealt by version 1.
ALTER TABLE games ADD COLUMN rules_version BIGINT NOT NULL DEFAULT 1;
