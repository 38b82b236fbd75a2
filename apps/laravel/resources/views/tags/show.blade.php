@extends('layouts.blog')
@section('title')Tag: {{ $name }}@endsection
@section('content')
<h1>Posts tagged “{{ $name }}”</h1>
<p>{{ $postCount }} posts in all; the latest 20:</p>
@foreach ($posts as $post)
<article>
<h2><a href="/posts/{{ $post['slug'] }}">{{ $post['title'] }}</a></h2>
<p class="meta">by {{ $post['author'] }} on <time>{{ $post['date'] }}</time></p>
<p>{{ $post['excerpt'] }}</p>
<ul class="tags">
@foreach ($post['tags'] as $tag)
<li><a href="/tags/{{ $tag['slug'] }}">{{ $tag['name'] }}</a></li>
@endforeach
</ul>
</article>
@endforeach
@endsection
