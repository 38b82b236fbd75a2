CREATE UNIQUE INDEX posts_slug ON posts (slug);
CREATE INDEX posts_published_at ON posts (published_at DESC, id DESC);
CREATE INDEX post_tags_tag_post ON post_tags (tag_id, post_id);
CREATE INDEX comments_post_created ON comments (post_id, created_at);
