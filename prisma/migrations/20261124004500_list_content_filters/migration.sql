-- Functions behind the `body`, `parsed_query` and `search_term` filters of the event and request lists
-- (issue 12 §4; lib/http/json-filter.ts translates the reference's filter syntax to jsonpath over them).

-- A request body as JSON, or NULL when it is not JSON (or not UTF-8).
CREATE FUNCTION hookyard_json_body(body bytea) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF body IS NULL THEN RETURN NULL; END IF;
  RETURN convert_from(body, 'UTF8')::jsonb;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;

-- Text as JSON, or NULL when it is not JSON.
CREATE FUNCTION hookyard_json_text(body text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN body::jsonb;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;

-- Percent-decoding of a query-string component (`+` is a space); the input itself when it does not decode to UTF-8.
CREATE FUNCTION hookyard_url_decode(s text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  out bytea := '';
  i int := 1;
  n int;
BEGIN
  s := replace(s, '+', ' ');
  IF position('%' in s) = 0 THEN RETURN s; END IF;
  n := length(s);
  WHILE i <= n LOOP
    IF substr(s, i, 1) = '%' AND substr(s, i + 1, 2) ~ '^[0-9A-Fa-f]{2}$' THEN
      out := out || decode(substr(s, i + 1, 2), 'hex');
      i := i + 3;
    ELSE
      out := out || convert_to(substr(s, i, 1), 'UTF8');
      i := i + 1;
    END IF;
  END LOOP;
  RETURN convert_from(out, 'UTF8');
EXCEPTION WHEN others THEN
  RETURN s;
END $$;

-- A raw query string as the API's `parsed_query`: {key: value}, a repeated key as an array of its values.
CREATE FUNCTION hookyard_parsed_query(q text) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(jsonb_object_agg(k, CASE WHEN array_length(v, 1) = 1 THEN to_jsonb(v[1]) ELSE to_jsonb(v) END), '{}'::jsonb)
    FROM (SELECT hookyard_url_decode(split_part(p, '=', 1)) AS k,
                 array_agg(hookyard_url_decode(CASE WHEN position('=' in p) > 0 THEN substr(p, position('=' in p) + 1) ELSE '' END)) AS v
            FROM unnest(string_to_array(coalesce(q, ''), '&')) AS p
           WHERE p <> ''
           GROUP BY 1) s
$$;
