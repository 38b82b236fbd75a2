package main

import (
	"context"
	"errors"
	"log"
	"net/http"

	"blogbench/goshared/blog"
	"blogbench/goshared/pagecache"
	"blogbench/goshared/workload"

	"github.com/gin-gonic/gin"
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

func (a *app) home(c *gin.Context) {
	page, err := a.store.RenderHome(c.Request.Context())
	a.respond(c, page, err)
}

// region: detail-page
// requireSlug answers the 404 page, before any query or cache lookup, when the :slug
// segment cannot be a slug (docs/spec.md §3.1), and stops the route's handlers.
func (a *app) requireSlug(c *gin.Context) {
	if !workload.IsSlug(c.Param("slug")) {
		a.notFoundPage(c)
		c.Abort()
	}
}

func (a *app) post(c *gin.Context) {
	page, err := a.store.RenderPost(c.Request.Context(), c.Param("slug"))
	a.respond(c, page, err)
}

// endregion

func (a *app) tag(c *gin.Context) {
	page, err := a.store.RenderTag(c.Request.Context(), c.Param("slug"))
	a.respond(c, page, err)
}

func (a *app) cachedHome(c *gin.Context) {
	a.serveCached(c, pagecache.HomeKey, a.store.RenderHome)
}

// region: cache
func (a *app) cachedPost(c *gin.Context) {
	slug := c.Param("slug")
	a.serveCached(c, pagecache.PostKey(slug), func(ctx context.Context) ([]byte, error) {
		return a.store.RenderPost(ctx, slug)
	})
}

// serveCached serves the page stored under key (docs/spec.md §3.5): a hit is one Redis GET;
// on a miss the page is rendered from the database, stored with no expiry and served. When
// Redis fails, the page is rendered from the database and nothing is stored.
func (a *app) serveCached(c *gin.Context, key string, renderPage func(context.Context) ([]byte, error)) {
	ctx := c.Request.Context()
	page, hit, cacheErr := a.cache.Get(ctx, key)
	if hit {
		a.respond(c, page, nil)
		return
	}
	page, err := renderPage(ctx)
	if err == nil && cacheErr == nil {
		a.cache.Set(ctx, key, page)
	}
	a.respond(c, page, err)
}

// endregion

func compute(c *gin.Context) {
	n, ok := workload.ParseN(c.Request.URL.RawQuery)
	if !ok {
		c.Data(http.StatusBadRequest, textType, []byte(workload.BadNMessage))
		return
	}
	c.Data(http.StatusOK, textType, workload.ComputeBody(n))
}

// region: comment
// comment stores a comment (docs/spec.md §3.9): the form checked before anything else, the
// insert in one transaction, then the post's and the home page's cached copies deleted, and
// a 303 to the post. requireSlug has answered a segment that is not a slug.
func (a *app) comment(c *gin.Context) {
	slug := c.Param("slug")
	if !workload.IsForm(c.GetHeader("Content-Type")) {
		c.Error(workload.ErrNotAForm)
		return
	}
	// Gin has no body limit of its own: net/http's, as in the reference.
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, workload.FormLimit)
	body, err := c.GetRawData()
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		c.Error(workload.ErrTooLarge)
		return
	case err != nil: // the client stopped sending
		c.Error(workload.ErrMalformed)
		return
	}
	comment, err := workload.ParseComment(body)
	if err != nil {
		c.Error(err)
		return
	}
	// Once sent, the write and the invalidation finish even if the client goes away: a
	// committed comment whose pages stayed cached would be a stale page for every reader.
	ctx := context.WithoutCancel(c.Request.Context())
	if err := a.store.AddComment(ctx, slug, comment); err != nil {
		c.Error(err)
		return
	}
	a.cache.Invalidate(ctx, pagecache.KeysACommentChanges(slug)...)
	// net/http's Redirect: for a POST, a Location, no Content-Type and no body
	// (Content-Length: 0).
	c.Redirect(http.StatusSeeOther, "/posts/"+slug)
}

// endregion

func (a *app) notFoundPage(c *gin.Context) {
	c.Data(http.StatusNotFound, htmlType, a.notFound)
}

// respond sends a rendered page, or leaves the error that stopped it to answerErrors.
//
// The pages are rendered by blog.Render and sent as bytes with c.Data, which gives them their
// Content-Length (render/data.go), not with c.HTML: Gin's HTML render executes the template
// into the response as it goes (render/html.go), so a page over net/http's 2 KiB buffer would
// go out chunked, and a template failing midway would have sent its 200 already. The cached
// routes need the bytes anyway, and Gin's renderer holds one template set, where each page
// defines its own "title" and "content".
func (a *app) respond(c *gin.Context, page []byte, err error) {
	if err != nil {
		c.Error(err)
		return
	}
	c.Data(http.StatusOK, htmlType, page)
}

// region: errors
// answerErrors is the middleware that turns the error a handler left in c.Errors into its
// response: the 404 page for an unknown slug, the form rule's refusal, 500 when a template
// failed, 503 when the database failed.
func (a *app) answerErrors(c *gin.Context) {
	c.Next()
	last := c.Errors.Last()
	if last == nil {
		return
	}
	err, r := last.Err, c.Request
	var refused *workload.FormError
	switch {
	case errors.Is(err, blog.ErrNotFound):
		a.notFoundPage(c)
	case errors.As(err, &refused):
		c.Data(refused.Status, textType, []byte(refused.Message))
	case errors.Is(err, blog.ErrRender):
		log.Printf("%s %s: %v", r.Method, r.URL.Path, err)
		c.Data(http.StatusInternalServerError, textType, []byte(workload.InternalErrorMessage))
	default:
		if r.Context().Err() == nil { // not a client that went away
			log.Printf("%s %s: database unavailable: %v", r.Method, r.URL.Path, err)
		}
		c.Data(http.StatusServiceUnavailable, textType, []byte(workload.DBUnavailableMessage))
	}
}

// endregion
