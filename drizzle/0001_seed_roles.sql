-- The three built-in roles. Later roles come from the admin API, not from migrations.
INSERT INTO "roles" ("name", "permissions") VALUES
  ('admin', '["*"]'::jsonb),
  ('vendor', '["versions.publish"]'::jsonb),
  ('customer', '[]'::jsonb)
ON CONFLICT ("name") DO NOTHING;
