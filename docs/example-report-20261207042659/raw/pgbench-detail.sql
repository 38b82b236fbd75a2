SELECT p.id, p.title, p.slug, p.body, p.published_at, a.name AS author_name FROM posts p JOIN authors a ON a.id = p.author_id WHERE p.slug = 'tom-jerry-s-c-notes-on-na-ve-caf-benchmarks-1000';
SELECT t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = 1000 ORDER BY t.slug;
SELECT author_name, body, created_at FROM comments WHERE post_id = 1000 ORDER BY created_at, id;
