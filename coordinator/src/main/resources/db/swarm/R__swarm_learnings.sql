-- Repeatable migration (Flyway R__): the swarm functions for learnings (memory), which CLAIM returns and COMPLETE stores. Flyway runs this file again
-- whenever it changes, after the versioned migrations (tables, indexes) in this directory; edit the
-- function here instead of adding a versioned migration. CREATE OR REPLACE keeps a function's
-- signature: to change its arguments or return type, DROP it first in this file.
-- Function bodies are checked when called, not here, so the files may run in any order.
SET LOCAL check_function_bodies = off;

-- Swarm coordinator: learnings of earlier work, found by the words of a task.

-- any of the words of a text, as a full-text query (NULL when the text has none)
CREATE OR REPLACE FUNCTION swarm._any_words(p_text text) RETURNS tsquery LANGUAGE sql STABLE AS $$
  SELECT string_agg('''' || lex || '''', ' | ')::tsquery
  FROM (SELECT lex FROM unnest(tsvector_to_array(to_tsvector('english', coalesce(p_text, '')))) lex
         WHERE lex !~ '[''\\]' LIMIT 64) w
$$;

CREATE OR REPLACE FUNCTION swarm._learning_json(l swarm.learnings) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('taskId', l.task_id, 'agentId', l.agent_id, 'learning', l.content,
                            'createdAt', swarm._iso(l.created_at))
$$;

-- learnings of earlier work that share words with a task's title and description (its words), best
-- first, as one row holding the JSON array. A set-returning SQL function, so that PostgreSQL inlines
-- it into a statement that joins it LATERAL: swarm.claim_batch finds the learnings of all the tasks it
-- claims in its one statement (3 µs a task where none match, against 14 µs for a function call each).
-- Without words, (@@ NULL), nothing matches.
CREATE OR REPLACE FUNCTION swarm.learnings_matching(p_words tsquery, p_limit integer DEFAULT 5)
RETURNS TABLE (learnings jsonb) LANGUAGE sql STABLE AS $$
  SELECT coalesce(jsonb_agg(x.j ORDER BY x.rank DESC, x.id DESC), '[]'::jsonb)
    FROM (SELECT l.id, ts_rank(l.search, p_words) AS rank, swarm._learning_json(l) AS j
            FROM swarm.learnings l
           WHERE l.search @@ p_words
           ORDER BY rank DESC, l.id DESC
           LIMIT p_limit) x
$$;

-- the same for one task, as a value
CREATE OR REPLACE FUNCTION swarm.related_learnings(t swarm.tasks, p_limit integer DEFAULT 5) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT learnings FROM swarm.learnings_matching(t.words, p_limit)
$$;

-- full-text search over learnings (web-search syntax: words, "phrases", or, -not)
CREATE OR REPLACE FUNCTION swarm.search_learnings(p_query text, p_limit integer DEFAULT 20) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT learnings FROM swarm.learnings_matching(websearch_to_tsquery('english', p_query), p_limit)
$$;
