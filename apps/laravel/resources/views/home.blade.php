@extends('layouts.blog')
@section('title', 'Latest posts')
@section('content')
<h1>Latest posts</h1>
@foreach ($posts as $post)
<article>
<h2><a href="/posts/{{ $post['slug'] }}">{{ $post['title'] }}</a></h2>
<p class="meta">by {{ $post['author'] }} on <time>{{ $post['date'] }}</time> · comments: {{ $post['commentCount'] }}</p>
<p>{{ $post['excerpt'] }}</p>
<ul class="tags">
@foreach ($post['tags'] as $tag)
<li><a href="/tags/{{ $tag['slug'] }}">{{ $tag['name'] }}</a></li>
@endforeach
</ul>
</article>
@endforeach
@endsection
