//! The models: SeaORM entities (`_entities`) and, per table, the finders the pages use.
//! Every finder is one SQL statement (docs/spec.md §3: home 3, post 3, tag 4, as in Go).

pub mod _entities;
pub mod comments;
pub mod posts;
pub mod tags;
