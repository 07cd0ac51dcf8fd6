//! Installs RED (`[protocols.red]`): one RED queue per class of every port it names,
//! its settings from the port's link rate.

use super::aqm::install_seeded;
use super::{Install, InstallCx};
use crate::aqm::red::{Red, RedParams, RedSettings};
use crate::aqm::Aqm;
use crate::scenario::ScenarioError;

impl Install for RedParams {
    fn install(&self, path: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        self.check().map_err(|(k, m)| cx.err(&format!("{path}.{k}"), m))?;
        let settings = |rate_bps| self.settings(rate_bps);
        let make = |s: &RedSettings, rate_bps, rng| Aqm::Red(Red::new(self, s.clone(), rate_bps, rng));
        install_seeded(cx, path, &self.ports, "red", settings, make)
    }
}
