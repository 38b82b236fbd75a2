//! `cargo loco start` for this app: load the config, boot, serve (see the library's docs).

use loco::app::App;
use loco_rs::app::Hooks;
use loco_rs::boot::{self, ServeParams, StartMode};
use loco_rs::environment::Environment;
use mimalloc::MiMalloc;
use std::process::ExitCode;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

fn main() -> ExitCode {
    workload::run_on_tokio("loco", |settings| async move { start(&settings).await })
}

async fn start(settings: &workload::Config) -> loco_rs::Result<()> {
    let environment = std::env::var("LOCO_ENV").map_or(Environment::Production, Environment::from);
    let config = App::load_config(&environment).await?;
    let boot = App::boot(StartMode::ServerOnly, &environment, config).await?;
    if !App::init_logger(&boot.app_context)? {
        loco_rs::logger::init::<App>(&boot.app_context.config.logger)?;
    }
    let (binding, port) = settings
        .bind
        .rsplit_once(':')
        .and_then(|(host, port)| Some((host.to_owned(), port.parse().ok()?)))
        .ok_or_else(|| {
            loco_rs::Error::Message(format!("BIND must be host:port, got {:?}", settings.bind))
        })?;
    println!("loco listening on http://{}/", settings.bind);
    boot::start::<App>(boot, ServeParams { port, binding }, true).await
}
