//! SeaORM entities for the tables of docs/spec.md §2 (the shape `sea-orm-cli generate entity`
//! writes, written by hand: the schema belongs to `seed/`, so the app has no migrations).

pub mod prelude;

pub mod authors;
pub mod comments;
pub mod post_tags;
pub mod posts;
pub mod tags;
