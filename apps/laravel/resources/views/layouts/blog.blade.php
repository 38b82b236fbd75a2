<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>@yield('title') · blogbench</title>
</head>
<body>
<header><a href="/">blogbench</a></header>
<main>
@yield('content')
</main>
</body>
</html>
