-- The currencies purchases are recorded in; more can be inserted by operators.
INSERT INTO "currencies" ("code", "name", "symbol", "decimals") VALUES
  ('USD', 'US Dollar', '$', 2),
  ('EUR', 'Euro', '€', 2),
  ('GBP', 'Pound Sterling', '£', 2)
ON CONFLICT ("code") DO NOTHING;
