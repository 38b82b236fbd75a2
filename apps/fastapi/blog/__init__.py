"""blogbench's blog on FastAPI: the pages of docs/spec.md, byte for byte the Go reference's."""
