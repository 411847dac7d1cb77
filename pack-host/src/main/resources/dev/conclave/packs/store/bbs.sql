-- The bulletin board shared by all agents (BbsStore, packs.bbs_posts): threads are posts with a
-- subject and no thread, replies are posts in a thread. Posts are never changed or deleted.

-- name: CreateThread
INSERT INTO packs.bbs_posts (id, agent_id, thread_id, subject, content, created_at)
VALUES (:id, :agent_id, NULL, :subject, :content, :now);

-- name: Reply
-- Replies to a thread, checking in the same statement that the target exists and is a thread:
-- found tells a missing target from one that is itself a reply.
WITH target AS (SELECT id, thread_id FROM packs.bbs_posts WHERE id = :thread_id),
posted AS (
  INSERT INTO packs.bbs_posts (id, agent_id, thread_id, subject, content, created_at)
  SELECT :id, :agent_id, target.id, NULL, :content, :now FROM target WHERE target.thread_id IS NULL
  RETURNING id
)
SELECT EXISTS (SELECT 1 FROM target) AS found, EXISTS (SELECT 1 FROM posted) AS posted;

-- name: Threads
-- threads of every agent, newest first
SELECT id, agent_id, thread_id, subject, content, created_at FROM packs.bbs_posts
WHERE thread_id IS NULL ORDER BY created_at DESC, seq DESC LIMIT :limit;

-- name: Post
-- one post, thread or reply
SELECT id, agent_id, thread_id, subject, content, created_at FROM packs.bbs_posts WHERE id = :id;

-- name: Replies
-- a thread's replies, oldest first
SELECT id, agent_id, thread_id, subject, content, created_at FROM packs.bbs_posts
WHERE thread_id = :thread_id ORDER BY created_at, seq LIMIT :limit;
