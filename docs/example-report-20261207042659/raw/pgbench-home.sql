SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name FROM posts p JOIN authors a ON a.id = p.author_id ORDER BY p.published_at DESC, p.id DESC LIMIT 20;
SELECT pt.post_id, t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = ANY('{1000,999,998,997,996,995,994,993,992,991,990,989,988,987,986,985,984,983,982,981}'::int[]) ORDER BY pt.post_id, t.slug;
SELECT post_id, count(*) AS comment_count FROM comments WHERE post_id = ANY('{1000,999,998,997,996,995,994,993,992,991,990,989,988,987,986,985,984,983,982,981}'::int[]) GROUP BY post_id;
