package main

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	htmlType = "text/html; charset=utf-8"
	textType = "text/plain; charset=utf-8"
)

var (
	errNotFound = errors.New("not found")
	errRender   = errors.New("rendering a template")
)

// app holds what the handlers share.
type app struct {
	db       *pgxpool.Pool
	cache    *pageCache
	notFound []byte // the 404 page, rendered once
}

func newApp(db *pgxpool.Pool, cache *pageCache) (*app, error) {
	notFound, err := render(notFoundTemplate, nil)
	if err != nil {
		return nil, err
	}
	return &app{db: db, cache: cache, notFound: notFound}, nil
}

func (a *app) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.handleHome)
	mux.HandleFunc("GET /posts/{slug}", a.withSlug(a.handlePost))
	mux.HandleFunc("GET /tags/{slug}", a.withSlug(a.handleTag))
	mux.HandleFunc("GET /cached/{$}", a.handleCachedHome)
	mux.HandleFunc("GET /cached/posts/{slug}", a.withSlug(a.handleCachedPost))
	mux.HandleFunc("GET /compute", handleCompute)
	mux.HandleFunc("POST /posts/{slug}/comments", a.withSlug(a.handleComment))
	mux.HandleFunc("/", a.handleNotFound)
	return mux
}

func (a *app) handleHome(w http.ResponseWriter, r *http.Request) {
	page, err := a.renderHome(r.Context())
	a.respond(w, r, page, err)
}

// withSlug hands the {slug} segment to serve, or answers the 404 page, before any query or
// cache lookup, when the segment cannot be a slug (docs/spec.md §3.1).
func (a *app) withSlug(serve func(http.ResponseWriter, *http.Request, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		slug := r.PathValue("slug")
		if !isSlug(slug) {
			a.handleNotFound(w, r)
			return
		}
		serve(w, r, slug)
	}
}

func (a *app) handlePost(w http.ResponseWriter, r *http.Request, slug string) {
	page, err := a.renderPost(r.Context(), slug)
	a.respond(w, r, page, err)
}

func (a *app) handleTag(w http.ResponseWriter, r *http.Request, slug string) {
	page, err := a.renderTag(r.Context(), slug)
	a.respond(w, r, page, err)
}

func (a *app) handleCachedHome(w http.ResponseWriter, r *http.Request) {
	a.serveCached(w, r, homeKey, a.renderHome)
}

func (a *app) handleCachedPost(w http.ResponseWriter, r *http.Request, slug string) {
	a.serveCached(w, r, postKey(slug), func(ctx context.Context) ([]byte, error) {
		return a.renderPost(ctx, slug)
	})
}

// serveCached serves the page stored under key (docs/spec.md §3): a hit is one Redis GET; on a miss
// the page is rendered from the database, stored with no expiry and served. When Redis fails,
// the page is rendered from the database and nothing is stored.
func (a *app) serveCached(w http.ResponseWriter, r *http.Request, key string, renderPage func(context.Context) ([]byte, error)) {
	ctx := r.Context()
	page, hit, cacheErr := a.cache.get(ctx, key)
	if hit {
		a.respond(w, r, page, nil)
		return
	}
	page, err := renderPage(ctx)
	if err == nil && cacheErr == nil {
		a.cache.set(ctx, key, page)
	}
	a.respond(w, r, page, err)
}

// handleComment stores a comment (docs/spec.md §3.9): the form checked before anything else,
// the insert in one transaction, then the post's and the home page's cached copies deleted,
// and a 303 to the post.
func (a *app) handleComment(w http.ResponseWriter, r *http.Request, slug string) {
	if !isForm(r.Header.Get("Content-Type")) {
		writeFormError(w, errNotAForm)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, formLimit))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeFormError(w, errTooLarge)
		return
	case err != nil: // the client stopped sending
		writeFormError(w, errMalformed)
		return
	}
	comment, err := parseComment(body)
	var bad *formError
	if errors.As(err, &bad) {
		writeFormError(w, bad)
		return
	}
	// Once sent, the write and the invalidation finish even if the client goes away: a
	// committed comment whose pages stayed cached would be a stale page for every reader.
	ctx := context.WithoutCancel(r.Context())
	if err := a.addComment(ctx, slug, comment); err != nil {
		a.respond(w, r, nil, err)
		return
	}
	a.cache.invalidate(ctx, keysACommentChanges(slug)...)
	h := w.Header()
	h.Set("Location", "/posts/"+slug)
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusSeeOther)
}

// addComment inserts comment on the post slug in one transaction: 4 statements (BEGIN,
// postIDBySlug, insertComment, COMMIT), or errNotFound after a rollback.
func (a *app) addComment(ctx context.Context, slug string, comment newComment) error {
	return pgx.BeginFunc(ctx, a.db, func(tx pgx.Tx) error {
		var postID int32
		err := tx.QueryRow(ctx, postIDBySlug, slug).Scan(&postID)
		if errors.Is(err, pgx.ErrNoRows) {
			return errNotFound
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, insertComment, postID, comment.authorName, comment.body)
		return err
	})
}

func writeFormError(w http.ResponseWriter, err *formError) {
	write(w, err.status, textType, []byte(err.message))
}

func (a *app) handleNotFound(w http.ResponseWriter, r *http.Request) {
	write(w, http.StatusNotFound, htmlType, a.notFound)
}

func handleCompute(w http.ResponseWriter, r *http.Request) {
	n, ok := parseN(r.URL.RawQuery)
	if !ok {
		write(w, http.StatusBadRequest, textType, []byte(badN))
		return
	}
	body := strconv.AppendInt(nil, sumOfPrimesBelow(n), 10)
	write(w, http.StatusOK, textType, append(body, '\n'))
}

// respond sends a rendered page, or the response for the error that stopped it: the 404 page
// for an unknown slug, 503 when the database failed.
func (a *app) respond(w http.ResponseWriter, r *http.Request, page []byte, err error) {
	switch {
	case err == nil:
		write(w, http.StatusOK, htmlType, page)
	case errors.Is(err, errNotFound):
		write(w, http.StatusNotFound, htmlType, a.notFound)
	case errors.Is(err, errRender):
		log.Printf("%s %s: %v", r.Method, r.URL.Path, err)
		write(w, http.StatusInternalServerError, textType, []byte("internal server error\n"))
	default:
		if r.Context().Err() == nil { // not a client that went away
			log.Printf("%s %s: database unavailable: %v", r.Method, r.URL.Path, err)
		}
		write(w, http.StatusServiceUnavailable, textType, []byte("database unavailable\n"))
	}
}

// write sends a whole body with its length: no chunked responses (docs/spec.md §3).
func write(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

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

func scanTagLink(row pgx.CollectableRow) (t tagLink, err error) {
	err = row.Scan(&t.Name, &t.Slug)
	return t, err
}

func scanComment(row pgx.CollectableRow) (c commentView, err error) {
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

// renderHome renders / with 3 queries: homePosts, tagsOfPosts, commentCounts.
func (a *app) renderHome(ctx context.Context) ([]byte, error) {
	page, err := a.loadHome(ctx)
	if err != nil {
		return nil, err
	}
	return render(homeTemplate, page)
}

// renderPost renders /posts/{slug} with 3 queries: postBySlug, tagsOfPost, commentsOfPost.
func (a *app) renderPost(ctx context.Context, slug string) ([]byte, error) {
	page, err := a.loadPost(ctx, slug)
	if err != nil {
		return nil, err
	}
	return render(postTemplate, page)
}

// renderTag renders /tags/{slug} with 4 queries: tagBySlug, tagPosts, tagsOfPosts,
// tagPostCount.
func (a *app) renderTag(ctx context.Context, slug string) ([]byte, error) {
	page, err := a.loadTag(ctx, slug)
	if err != nil {
		return nil, err
	}
	return render(tagTemplate, page)
}

func (a *app) loadHome(ctx context.Context) (homePage, error) {
	rows, _ := a.db.Query(ctx, homePosts)
	posts, err := pgx.CollectRows(rows, scanPostSummary)
	if err != nil {
		return homePage{}, err
	}
	postIDs := ids(posts)
	rows, _ = a.db.Query(ctx, tagsOfPosts, postIDs)
	tags, err := pgx.CollectRows(rows, scanPostTag)
	if err != nil {
		return homePage{}, err
	}
	counts := make(map[int32]int64, len(posts))
	var postID int32
	var count int64
	rows, _ = a.db.Query(ctx, commentCounts, postIDs)
	_, err = pgx.ForEachRow(rows, []any{&postID, &count}, func() error {
		counts[postID] = count
		return nil
	})
	if err != nil {
		return homePage{}, err
	}
	return homePage{Posts: cards(posts, tags, counts)}, nil
}

func (a *app) loadPost(ctx context.Context, slug string) (postPage, error) {
	var p post
	err := a.db.QueryRow(ctx, postBySlug, slug).
		Scan(&p.ID, &p.Title, &p.Slug, &p.Body, &p.PublishedAt, &p.AuthorName)
	if errors.Is(err, pgx.ErrNoRows) {
		return postPage{}, errNotFound
	}
	if err != nil {
		return postPage{}, err
	}
	page := postPage{
		Title:      p.Title,
		Author:     p.AuthorName,
		Date:       date(p.PublishedAt),
		Paragraphs: paragraphs(p.Body),
	}
	rows, _ := a.db.Query(ctx, tagsOfPost, p.ID)
	if page.Tags, err = pgx.CollectRows(rows, scanTagLink); err != nil {
		return postPage{}, err
	}
	rows, _ = a.db.Query(ctx, commentsOfPost, p.ID)
	if page.Comments, err = pgx.CollectRows(rows, scanComment); err != nil {
		return postPage{}, err
	}
	return page, nil
}

func (a *app) loadTag(ctx context.Context, slug string) (tagPage, error) {
	var id int32
	page := tagPage{}
	err := a.db.QueryRow(ctx, tagBySlug, slug).Scan(&id, &page.Name, &page.Slug)
	if errors.Is(err, pgx.ErrNoRows) {
		return tagPage{}, errNotFound
	}
	if err != nil {
		return tagPage{}, err
	}
	rows, _ := a.db.Query(ctx, tagPosts, id)
	posts, err := pgx.CollectRows(rows, scanPostSummary)
	if err != nil {
		return tagPage{}, err
	}
	rows, _ = a.db.Query(ctx, tagsOfPosts, ids(posts))
	tags, err := pgx.CollectRows(rows, scanPostTag)
	if err != nil {
		return tagPage{}, err
	}
	if err := a.db.QueryRow(ctx, tagPostCount, id).Scan(&page.PostCount); err != nil {
		return tagPage{}, err
	}
	page.Posts = cards(posts, tags, nil)
	return page, nil
}
