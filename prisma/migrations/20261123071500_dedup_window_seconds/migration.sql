-- Deduplicate rules' `window` is now in seconds (shared/spec/gateway.md "Rules"); rules stored with the
-- earlier milliseconds (1000..3600000) become the same duration in seconds, rounded up.
UPDATE "connections" SET "rules" = (
  SELECT jsonb_agg(
    CASE WHEN r->>'type' = 'deduplicate' AND jsonb_typeof(r->'window') = 'number' AND (r->>'window')::numeric >= 1000
      THEN jsonb_set(r, '{window}', to_jsonb(ceil((r->>'window')::numeric / 1000)::int))
      ELSE r END
    ORDER BY ord)
  FROM jsonb_array_elements("rules") WITH ORDINALITY AS t(r, ord)
)
WHERE jsonb_typeof("rules") = 'array' AND "rules" @> '[{"type":"deduplicate"}]';
