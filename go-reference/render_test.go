package main

import (
	"context"
	"html/template"
	"testing"

	"blogbench/goshared/blog"
)

// BenchmarkRender times html/template alone on each page's real view data (loaded once from
// the database), the Go side of the template comparison in `blogbench profile --templates`;
// templates/benches/render.rs times the Rust engines on the same pages.
func BenchmarkRender(b *testing.B) {
	if err := servicesReady(); err != nil {
		b.Fatalf("%v: run `make services` first", err)
	}
	ctx := context.Background()
	cfg, err := configOf("DATABASE_URL", databaseURL)
	if err != nil {
		b.Fatal(err)
	}
	db, err := blog.OpenDB(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	store := blog.NewStore(db)
	home, err := store.LoadHome(ctx)
	if err != nil {
		b.Fatal(err)
	}
	// The detail route's post: the newest.
	post, err := store.LoadPost(ctx, home.Posts[0].Slug)
	if err != nil {
		b.Fatal(err)
	}
	tag, err := store.LoadTag(ctx, "rust")
	if err != nil {
		b.Fatal(err)
	}
	for _, page := range []struct {
		name     string
		template *template.Template
		data     any
	}{{"home", blog.HomeTemplate, home}, {"post", blog.PostTemplate, post}, {"tag", blog.TagTemplate, tag}} {
		b.Run(page.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := blog.Render(page.template, page.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
