package main

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"strconv"

	"blogbench/goshared/blog"
	"blogbench/goshared/pagecache"
	"blogbench/goshared/workload"
)

const (
	htmlType = "text/html; charset=utf-8"
	textType = "text/plain; charset=utf-8"
)

// app holds what the handlers share.
type app struct {
	store    *blog.Store
	cache    *pagecache.Cache
	notFound []byte // the 404 page, rendered once
}

func newApp(store *blog.Store, cache *pagecache.Cache) (*app, error) {
	notFound, err := blog.Render(blog.NotFoundTemplate, nil)
	if err != nil {
		return nil, err
	}
	return &app{store: store, cache: cache, notFound: notFound}, nil
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
	page, err := a.store.RenderHome(r.Context())
	a.respond(w, r, page, err)
}

// region: detail-page
// withSlug hands the {slug} segment to serve, or answers the 404 page, before any query or
// cache lookup, when the segment cannot be a slug (docs/spec.md §3.1).
func (a *app) withSlug(serve func(http.ResponseWriter, *http.Request, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		slug := r.PathValue("slug")
		if !workload.IsSlug(slug) {
			a.handleNotFound(w, r)
			return
		}
		serve(w, r, slug)
	}
}

func (a *app) handlePost(w http.ResponseWriter, r *http.Request, slug string) {
	page, err := a.store.RenderPost(r.Context(), slug)
	a.respond(w, r, page, err)
}

// endregion

func (a *app) handleTag(w http.ResponseWriter, r *http.Request, slug string) {
	page, err := a.store.RenderTag(r.Context(), slug)
	a.respond(w, r, page, err)
}

func (a *app) handleCachedHome(w http.ResponseWriter, r *http.Request) {
	a.serveCached(w, r, pagecache.HomeKey, a.store.RenderHome)
}

// region: cache
func (a *app) handleCachedPost(w http.ResponseWriter, r *http.Request, slug string) {
	a.serveCached(w, r, pagecache.PostKey(slug), func(ctx context.Context) ([]byte, error) {
		return a.store.RenderPost(ctx, slug)
	})
}

// serveCached serves the page stored under key (docs/spec.md §3): a hit is one Redis GET; on a miss
// the page is rendered from the database, stored with no expiry and served. When Redis fails,
// the page is rendered from the database and nothing is stored.
func (a *app) serveCached(w http.ResponseWriter, r *http.Request, key string, renderPage func(context.Context) ([]byte, error)) {
	ctx := r.Context()
	page, hit, cacheErr := a.cache.Get(ctx, key)
	if hit {
		a.respond(w, r, page, nil)
		return
	}
	page, err := renderPage(ctx)
	if err == nil && cacheErr == nil {
		a.cache.Set(ctx, key, page)
	}
	a.respond(w, r, page, err)
}

// endregion

// region: comment
// handleComment stores a comment (docs/spec.md §3.9): the form checked before anything else,
// the insert in one transaction, then the post's and the home page's cached copies deleted,
// and a 303 to the post.
func (a *app) handleComment(w http.ResponseWriter, r *http.Request, slug string) {
	if !workload.IsForm(r.Header.Get("Content-Type")) {
		writeFormError(w, workload.ErrNotAForm)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, workload.FormLimit))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeFormError(w, workload.ErrTooLarge)
		return
	case err != nil: // the client stopped sending
		writeFormError(w, workload.ErrMalformed)
		return
	}
	comment, err := workload.ParseComment(body)
	var bad *workload.FormError
	if errors.As(err, &bad) {
		writeFormError(w, bad)
		return
	}
	// Once sent, the write and the invalidation finish even if the client goes away: a
	// committed comment whose pages stayed cached would be a stale page for every reader.
	ctx := context.WithoutCancel(r.Context())
	if err := a.store.AddComment(ctx, slug, comment); err != nil {
		a.respond(w, r, nil, err)
		return
	}
	a.cache.Invalidate(ctx, pagecache.KeysACommentChanges(slug)...)
	h := w.Header()
	h.Set("Location", "/posts/"+slug)
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusSeeOther)
}

func writeFormError(w http.ResponseWriter, err *workload.FormError) {
	write(w, err.Status, textType, []byte(err.Message))
}

// endregion

func (a *app) handleNotFound(w http.ResponseWriter, r *http.Request) {
	write(w, http.StatusNotFound, htmlType, a.notFound)
}

func handleCompute(w http.ResponseWriter, r *http.Request) {
	n, ok := workload.ParseN(r.URL.RawQuery)
	if !ok {
		write(w, http.StatusBadRequest, textType, []byte(workload.BadNMessage))
		return
	}
	write(w, http.StatusOK, textType, workload.ComputeBody(n))
}

// region: errors
// respond sends a rendered page, or the response for the error that stopped it: the 404 page
// for an unknown slug, 503 when the database failed.
func (a *app) respond(w http.ResponseWriter, r *http.Request, page []byte, err error) {
	switch {
	case err == nil:
		write(w, http.StatusOK, htmlType, page)
	case errors.Is(err, blog.ErrNotFound):
		write(w, http.StatusNotFound, htmlType, a.notFound)
	case errors.Is(err, blog.ErrRender):
		log.Printf("%s %s: %v", r.Method, r.URL.Path, err)
		write(w, http.StatusInternalServerError, textType, []byte(workload.InternalErrorMessage))
	default:
		if r.Context().Err() == nil { // not a client that went away
			log.Printf("%s %s: database unavailable: %v", r.Method, r.URL.Path, err)
		}
		write(w, http.StatusServiceUnavailable, textType, []byte(workload.DBUnavailableMessage))
	}
}

// endregion

// write sends a whole body with its length: no chunked responses (docs/spec.md §3).
func write(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
