-- Each logged action names the format of its payload (see server/src/store/format.rs):
-- every row written so far is format 1.
ALTER TABLE actions ADD COLUMN format INTEGER NOT NULL DEFAULT 1;
