package blog

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
)

// The data each page template renders, as in templates/src/views.rs: dates are formatted
// here (docs/spec.md §2: YYYY-MM-DD, comment times YYYY-MM-DD HH:MM, UTC) so every engine prints the
// same text.

// TagLink is a tag as a page links it.
type TagLink struct {
	Name string
	Slug string
}

// PostCard is a post in a list. CommentCount is shown on the home page only.
type PostCard struct {
	Title        string
	Slug         string
	Author       string
	Date         string
	Excerpt      string
	Tags         []TagLink
	CommentCount int64
}

// HomePage is the view data of /.
type HomePage struct {
	Posts []PostCard
}

// CommentView is a comment as the post page shows it.
type CommentView struct {
	Author string
	Time   string
	Body   string
}

// PostPage is the view data of /posts/{slug}.
type PostPage struct {
	Title      string
	Author     string
	Date       string
	Tags       []TagLink
	Paragraphs []string // the body split on blank lines, one <p> each
	Comments   []CommentView
}

// TagPage is the view data of /tags/{slug}.
type TagPage struct {
	Name      string
	Slug      string
	PostCount int64
	Posts     []PostCard
}

func date(t time.Time) string   { return t.UTC().Format("2006-01-02") }
func minute(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// paragraphs splits a post body on blank lines.
func paragraphs(body string) []string { return strings.Split(body, "\n\n") }

// cards builds the list entries for posts, with their tags grouped by post id (in query
// order) and their comment counts (0 for a post with no row; nil on the tag page).
func cards(posts []postSummary, tags []postTag, counts map[int32]int64) []PostCard {
	tagsByPost := make(map[int32][]TagLink, len(posts))
	for _, t := range tags {
		tagsByPost[t.PostID] = append(tagsByPost[t.PostID], TagLink{Name: t.Name, Slug: t.Slug})
	}
	out := make([]PostCard, len(posts))
	for i, p := range posts {
		out[i] = PostCard{
			Title:        p.Title,
			Slug:         p.Slug,
			Author:       p.AuthorName,
			Date:         date(p.PublishedAt),
			Excerpt:      p.Excerpt,
			Tags:         tagsByPost[p.ID],
			CommentCount: counts[p.ID],
		}
	}
	return out
}

//go:embed templates/*.html
var templateFiles embed.FS

// One template set per page: base.html plus the page's file (each page defines its own
// "title" and "content", so the pages cannot share one set). Execute "base.html".
var (
	HomeTemplate     = parsePage("home.html")
	PostTemplate     = parsePage("post.html")
	TagTemplate      = parsePage("tag.html")
	NotFoundTemplate = parsePage("not_found.html")
)

func parsePage(name string) *template.Template {
	return template.Must(template.ParseFS(templateFiles, "templates/base.html", "templates/"+name))
}

// Render executes a page template set into memory, so the response can carry its length.
func Render(t *template.Template, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := Execute(&buf, t, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Execute writes a page template set to w; a failure wraps ErrRender, and w may then hold
// part of the page.
func Execute(w io.Writer, t *template.Template, data any) error {
	if err := t.ExecuteTemplate(w, "base.html", data); err != nil {
		return fmt.Errorf("%w: %v", ErrRender, err)
	}
	return nil
}
