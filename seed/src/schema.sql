-- The schema of docs/spec.md §2. Indexes are created after the COPY (faster load); see `INDEXES`.
DROP TABLE IF EXISTS comments, post_tags, posts, tags, authors;

CREATE TABLE authors (
    id integer PRIMARY KEY,
    name text NOT NULL,
    bio text NOT NULL
);

CREATE TABLE tags (
    id integer PRIMARY KEY,
    name text NOT NULL UNIQUE,
    slug text NOT NULL UNIQUE
);

CREATE TABLE posts (
    id integer PRIMARY KEY,
    author_id integer NOT NULL REFERENCES authors (id),
    title text NOT NULL,
    slug text NOT NULL,
    excerpt text NOT NULL,
    body text NOT NULL,
    published_at timestamptz NOT NULL
);

CREATE TABLE post_tags (
    post_id integer NOT NULL REFERENCES posts (id),
    tag_id integer NOT NULL REFERENCES tags (id),
    PRIMARY KEY (post_id, tag_id)
);

CREATE TABLE comments (
    id integer PRIMARY KEY,
    post_id integer NOT NULL REFERENCES posts (id),
    author_name text NOT NULL,
    body text NOT NULL,
    created_at timestamptz NOT NULL
);
