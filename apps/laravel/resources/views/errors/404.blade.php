@extends('layouts.blog')
@section('title', 'Not found')
@section('content')
<h1>Not found</h1>
<p>There is no page at this address. <a href="/">Back to the latest posts</a>.</p>
@endsection
