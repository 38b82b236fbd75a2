// Package blog is the blog every Go app serves, whatever its framework: the PostgreSQL pool
// as the contract sets it up (docs/spec.md §1), the SQL text (byte for byte shared-sql's), the
// rows and each page's loader (§3.1), the transaction that stores a comment (§3.9), and the
// view data and html/template pages that every other app must match byte for byte (§3.3).
package blog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"blogbench/goshared/workload"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

var (
	// ErrNotFound is an unknown slug: the 404 page.
	ErrNotFound = errors.New("not found")
	// ErrRender is a template that failed: a 500.
	ErrRender = errors.New("rendering a template")
)

// OpenDB makes the Postgres pool. It connects lazily, so the app starts (and answers 503)
// while Postgres is down, and recovers by itself when it returns.
func OpenDB(ctx context.Context, cfg workload.Config) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	pc.MaxConns = cfg.PoolMax
	pc.MinConns = cfg.PoolMin
	switch cfg.PingOnAcquire { // "idle" is pgxpool's own rule: idle for more than a second
	case "always":
		pc.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return true }
	case "never":
		pc.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	}
	return pgxpool.NewWithConfig(ctx, pc)
}

// Store is the blog in PostgreSQL: each page's view data (Load*, a checkout of the pool per
// query), the page rendered from it (Render*), and the transaction that stores a comment.
// Any error but ErrNotFound and ErrRender is the database's (a 503).
type Store struct {
	db *pgxpool.Pool
}

// NewStore reads and writes the blog through db.
func NewStore(db *pgxpool.Pool) *Store { return &Store{db: db} }

// Rows, as in shared-sql/src/lib.rs.

type postSummary struct {
	ID          int32
	Title       string
	Slug        string
	Excerpt     string
	PublishedAt time.Time
	AuthorName  string
}

type post struct {
	ID          int32
	Title       string
	Slug        string
	Body        string
	PublishedAt time.Time
	AuthorName  string
}

type postTag struct {
	PostID int32
	Name   string
	Slug   string
}

func scanPostSummary(row pgx.CollectableRow) (p postSummary, err error) {
	err = row.Scan(&p.ID, &p.Title, &p.Slug, &p.Excerpt, &p.PublishedAt, &p.AuthorName)
	return p, err
}

func scanPostTag(row pgx.CollectableRow) (t postTag, err error) {
	err = row.Scan(&t.PostID, &t.Name, &t.Slug)
	return t, err
}

func scanTagLink(row pgx.CollectableRow) (t TagLink, err error) {
	err = row.Scan(&t.Name, &t.Slug)
	return t, err
}

func scanComment(row pgx.CollectableRow) (c CommentView, err error) {
	var at time.Time
	err = row.Scan(&c.Author, &c.Body, &at)
	c.Time = minute(at)
	return c, err
}

func ids(posts []postSummary) []int32 {
	out := make([]int32, len(posts))
	for i, p := range posts {
		out[i] = p.ID
	}
	return out
}

// The loaders below use pgx's idiom `rows, _ := db.Query(...)`: a failed Query returns Rows
// that hold its error, which CollectRows and ForEachRow report.

// RenderHome renders / with 3 queries: homePosts, tagsOfPosts, commentCounts.
func (s *Store) RenderHome(ctx context.Context) ([]byte, error) {
	page, err := s.LoadHome(ctx)
	if err != nil {
		return nil, err
	}
	return Render(HomeTemplate, page)
}

// RenderPost renders /posts/{slug} with 3 queries: postBySlug, tagsOfPost, commentsOfPost.
func (s *Store) RenderPost(ctx context.Context, slug string) ([]byte, error) {
	page, err := s.LoadPost(ctx, slug)
	if err != nil {
		return nil, err
	}
	return Render(PostTemplate, page)
}

// RenderTag renders /tags/{slug} with 4 queries: tagBySlug, tagPosts, tagsOfPosts,
// tagPostCount.
func (s *Store) RenderTag(ctx context.Context, slug string) ([]byte, error) {
	page, err := s.LoadTag(ctx, slug)
	if err != nil {
		return nil, err
	}
	return Render(TagTemplate, page)
}

// LoadHome reads the view data of / (3 queries).
func (s *Store) LoadHome(ctx context.Context) (HomePage, error) {
	rows, _ := s.db.Query(ctx, homePosts)
	posts, err := pgx.CollectRows(rows, scanPostSummary)
	if err != nil {
		return HomePage{}, err
	}
	postIDs := ids(posts)
	rows, _ = s.db.Query(ctx, tagsOfPosts, postIDs)
	tags, err := pgx.CollectRows(rows, scanPostTag)
	if err != nil {
		return HomePage{}, err
	}
	counts := make(map[int32]int64, len(posts))
	var postID int32
	var count int64
	rows, _ = s.db.Query(ctx, commentCounts, postIDs)
	_, err = pgx.ForEachRow(rows, []any{&postID, &count}, func() error {
		counts[postID] = count
		return nil
	})
	if err != nil {
		return HomePage{}, err
	}
	return HomePage{Posts: cards(posts, tags, counts)}, nil
}

// LoadPost reads the view data of /posts/{slug} (3 queries), or ErrNotFound after one.
func (s *Store) LoadPost(ctx context.Context, slug string) (PostPage, error) {
	var p post
	err := s.db.QueryRow(ctx, postBySlug, slug).
		Scan(&p.ID, &p.Title, &p.Slug, &p.Body, &p.PublishedAt, &p.AuthorName)
	if errors.Is(err, pgx.ErrNoRows) {
		return PostPage{}, ErrNotFound
	}
	if err != nil {
		return PostPage{}, err
	}
	page := PostPage{
		Title:      p.Title,
		Author:     p.AuthorName,
		Date:       date(p.PublishedAt),
		Paragraphs: paragraphs(p.Body),
	}
	rows, _ := s.db.Query(ctx, tagsOfPost, p.ID)
	if page.Tags, err = pgx.CollectRows(rows, scanTagLink); err != nil {
		return PostPage{}, err
	}
	rows, _ = s.db.Query(ctx, commentsOfPost, p.ID)
	if page.Comments, err = pgx.CollectRows(rows, scanComment); err != nil {
		return PostPage{}, err
	}
	return page, nil
}

// LoadTag reads the view data of /tags/{slug} (4 queries), or ErrNotFound after one.
func (s *Store) LoadTag(ctx context.Context, slug string) (TagPage, error) {
	var id int32
	page := TagPage{}
	err := s.db.QueryRow(ctx, tagBySlug, slug).Scan(&id, &page.Name, &page.Slug)
	if errors.Is(err, pgx.ErrNoRows) {
		return TagPage{}, ErrNotFound
	}
	if err != nil {
		return TagPage{}, err
	}
	rows, _ := s.db.Query(ctx, tagPosts, id)
	posts, err := pgx.CollectRows(rows, scanPostSummary)
	if err != nil {
		return TagPage{}, err
	}
	rows, _ = s.db.Query(ctx, tagsOfPosts, ids(posts))
	tags, err := pgx.CollectRows(rows, scanPostTag)
	if err != nil {
		return TagPage{}, err
	}
	if err := s.db.QueryRow(ctx, tagPostCount, id).Scan(&page.PostCount); err != nil {
		return TagPage{}, err
	}
	page.Posts = cards(posts, tags, nil)
	return page, nil
}

// AddComment inserts comment on the post slug in one transaction: 4 statements (BEGIN,
// postIDBySlug, insertComment, COMMIT), or ErrNotFound after a rollback.
func (s *Store) AddComment(ctx context.Context, slug string, comment workload.Comment) error {
	return pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		var postID int32
		err := tx.QueryRow(ctx, postIDBySlug, slug).Scan(&postID)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, insertComment, postID, comment.AuthorName, comment.Body)
		return err
	})
}
