@extends('layouts.blog')
@section('title'){{ $title }}@endsection
@section('content')
<article>
<h1>{{ $title }}</h1>
<p class="meta">by {{ $author }} on <time>{{ $date }}</time></p>
<ul class="tags">
@foreach ($tags as $tag)
<li><a href="/tags/{{ $tag['slug'] }}">{{ $tag['name'] }}</a></li>
@endforeach
</ul>
@foreach ($paragraphs as $paragraph)
<p>{{ $paragraph }}</p>
@endforeach
</article>
<section class="comments">
<h2>Comments ({{ count($comments) }})</h2>
@foreach ($comments as $comment)
<div class="comment">
<p class="meta">{{ $comment['author'] }} at <time>{{ $comment['time'] }}</time></p>
<p>{{ $comment['body'] }}</p>
</div>
@endforeach
</section>
@endsection
