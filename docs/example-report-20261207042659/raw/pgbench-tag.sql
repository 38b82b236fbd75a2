SELECT id, name, slug FROM tags WHERE slug = 'rust';
SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name FROM post_tags pt JOIN posts p ON p.id = pt.post_id JOIN authors a ON a.id = p.author_id WHERE pt.tag_id = 1 ORDER BY p.published_at DESC, p.id DESC LIMIT 20;
SELECT pt.post_id, t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = ANY('{977,972,960,954,889,872,840,835,818,816,813,808,787,783,763,761,750,745,744,742}'::int[]) ORDER BY pt.post_id, t.slug;
SELECT count(*) FROM post_tags WHERE tag_id = 1;
