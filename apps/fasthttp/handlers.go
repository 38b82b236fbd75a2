package main

import (
	"context"
	"errors"
	"html/template"
	"io"
	"log"

	"blogbench/goshared/blog"
	"blogbench/goshared/pagecache"
	"blogbench/goshared/workload"

	"github.com/valyala/fasthttp"
)

const (
	htmlType = "text/html; charset=utf-8"
	textType = "text/plain; charset=utf-8"
)

// app holds what the handlers share. The handlers pass the RequestCtx on as the context:
// fasthttp cancels it when the server shuts down, never when a client goes away.
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

func (a *app) home(ctx *fasthttp.RequestCtx) {
	a.respond(ctx, a.renderHome(ctx))
}

// region: detail-page
// withSlug hands the {slug} segment to serve, or answers the 404 page, before any query or
// cache lookup, when the segment cannot be a slug (docs/spec.md §3.1).
func (a *app) withSlug(ctx *fasthttp.RequestCtx, slug string, serve func(*fasthttp.RequestCtx, string)) {
	if !workload.IsSlug(slug) {
		a.notFoundPage(ctx)
		return
	}
	serve(ctx, slug)
}

func (a *app) post(ctx *fasthttp.RequestCtx, slug string) {
	a.respond(ctx, a.renderPost(ctx, slug))
}

// endregion

func (a *app) tag(ctx *fasthttp.RequestCtx, slug string) {
	a.respond(ctx, a.renderTag(ctx, slug))
}

func (a *app) cachedHome(ctx *fasthttp.RequestCtx) {
	a.serveCached(ctx, pagecache.HomeKey, a.renderHome)
}

// region: cache
func (a *app) cachedPost(ctx *fasthttp.RequestCtx, slug string) {
	a.serveCached(ctx, pagecache.PostKey(slug), func(ctx *fasthttp.RequestCtx) error {
		return a.renderPost(ctx, slug)
	})
}

// serveCached serves the page stored under key (docs/spec.md §3.5): a hit is one Redis GET;
// on a miss the page is rendered from the database into the response, stored from there with
// no expiry and served. When Redis fails, the page is rendered and nothing is stored.
func (a *app) serveCached(ctx *fasthttp.RequestCtx, key string, renderPage func(*fasthttp.RequestCtx) error) {
	page, hit, cacheErr := a.cache.Get(ctx, key)
	if hit {
		write(ctx, fasthttp.StatusOK, htmlType, page)
		return
	}
	err := renderPage(ctx)
	if err == nil && cacheErr == nil {
		a.cache.Set(ctx, key, ctx.Response.Body())
	}
	a.respond(ctx, err)
}

// endregion

func compute(ctx *fasthttp.RequestCtx) {
	n, ok := workload.ParseN(string(ctx.URI().QueryString()))
	if !ok {
		write(ctx, fasthttp.StatusBadRequest, textType, []byte(workload.BadNMessage))
		return
	}
	write(ctx, fasthttp.StatusOK, textType, workload.ComputeBody(n))
}

// region: comment
// comment stores a comment (docs/spec.md §3.9): the form checked before anything else, the
// insert in one transaction, then the post's and the home page's cached copies deleted, and
// a 303 to the post.
func (a *app) comment(ctx *fasthttp.RequestCtx, slug string) {
	if !workload.IsForm(string(ctx.Request.Header.ContentType())) {
		writeFormError(ctx, workload.ErrNotAForm)
		return
	}
	body, err := readForm(ctx)
	if err != nil { // the client stopped sending
		writeFormError(ctx, workload.ErrMalformed)
		return
	}
	comment, err := workload.ParseComment(body) // over FormLimit: 413
	var bad *workload.FormError
	if errors.As(err, &bad) {
		writeFormError(ctx, bad)
		return
	}
	// The write and the invalidation finish even if the server shuts down meanwhile (fasthttp
	// cancels ctx then): a committed comment whose pages stayed cached would be a stale page
	// for every reader.
	wctx := context.WithoutCancel(ctx)
	if err := a.store.AddComment(wctx, slug, comment); err != nil {
		a.respond(ctx, err)
		return
	}
	a.cache.Invalidate(wctx, pagecache.KeysACommentChanges(slug)...)
	// Not ctx.Redirect: it makes the Location absolute (http://host/posts/…); Go sends the
	// path. The body stays empty, with Content-Length: 0 and no Content-Type.
	ctx.Response.Header.Set(fasthttp.HeaderLocation, "/posts/"+slug)
	ctx.SetStatusCode(fasthttp.StatusSeeOther)
}

// readForm reads the streamed request body, at most one byte more than a form may hold, so
// that a larger one is refused without being read (Server.StreamRequestBody).
func readForm(ctx *fasthttp.RequestCtx) ([]byte, error) {
	stream := ctx.RequestBodyStream()
	if stream == nil { // neither Content-Length nor Transfer-Encoding: no body
		return nil, nil
	}
	return io.ReadAll(io.LimitReader(stream, workload.FormLimit+1))
}

func writeFormError(ctx *fasthttp.RequestCtx, err *workload.FormError) {
	write(ctx, err.Status, textType, []byte(err.Message))
}

// endregion

func (a *app) notFoundPage(ctx *fasthttp.RequestCtx) {
	write(ctx, fasthttp.StatusNotFound, htmlType, a.notFound)
}

// renderHome renders / into the response (3 queries).
func (a *app) renderHome(ctx *fasthttp.RequestCtx) error {
	page, err := a.store.LoadHome(ctx)
	if err != nil {
		return err
	}
	return renderInto(ctx, blog.HomeTemplate, page)
}

// region: detail-page
// renderPost renders /posts/{slug} into the response (3 queries).
func (a *app) renderPost(ctx *fasthttp.RequestCtx, slug string) error {
	page, err := a.store.LoadPost(ctx, slug)
	if err != nil {
		return err
	}
	return renderInto(ctx, blog.PostTemplate, page)
}

// endregion

// renderTag renders /tags/{slug} into the response (4 queries).
func (a *app) renderTag(ctx *fasthttp.RequestCtx, slug string) error {
	page, err := a.store.LoadTag(ctx, slug)
	if err != nil {
		return err
	}
	return renderInto(ctx, blog.TagTemplate, page)
}

// region: detail-page
// renderInto executes a page template straight into the response body, which fasthttp
// buffers whole and sends with its Content-Length. The status stays 200 unless respond
// replaces the page with an error's answer.
func renderInto(ctx *fasthttp.RequestCtx, t *template.Template, data any) error {
	ctx.SetContentType(htmlType)
	return blog.Execute(ctx, t, data)
}

// endregion

// region: errors
// respond leaves the page rendered into the response (a 200), or replaces whatever is there
// with the answer to the error that stopped it: the 404 page for an unknown slug, 500 when a
// template failed, 503 when the database failed.
func (a *app) respond(ctx *fasthttp.RequestCtx, err error) {
	switch {
	case err == nil:
	case errors.Is(err, blog.ErrNotFound):
		a.notFoundPage(ctx)
	case errors.Is(err, blog.ErrRender):
		log.Printf("%s %s: %v", ctx.Method(), ctx.Path(), err)
		write(ctx, fasthttp.StatusInternalServerError, textType, []byte(workload.InternalErrorMessage))
	default:
		if ctx.Err() == nil { // not a server shutting down
			log.Printf("%s %s: database unavailable: %v", ctx.Method(), ctx.Path(), err)
		}
		write(ctx, fasthttp.StatusServiceUnavailable, textType, []byte(workload.DBUnavailableMessage))
	}
}

// endregion

// write sets the whole answer, replacing any partial page; fasthttp sends a body set whole
// with its Content-Length (docs/spec.md §3.8).
func write(ctx *fasthttp.RequestCtx, status int, contentType string, body []byte) {
	ctx.SetStatusCode(status)
	ctx.SetContentType(contentType)
	ctx.SetBody(body)
}
