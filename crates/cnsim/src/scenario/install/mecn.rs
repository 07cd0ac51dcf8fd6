//! Installs MECN (`[protocols.mecn]`): one MECN queue per class of every port it names,
//! its settings from the port's link rate.

use super::aqm::install_seeded;
use super::{Install, InstallCx};
use crate::aqm::mecn::{Mecn, MecnParams, MecnSettings};
use crate::aqm::Aqm;
use crate::scenario::ScenarioError;

impl Install for MecnParams {
    fn install(&self, path: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        self.check().map_err(|(k, m)| cx.err(&format!("{path}.{k}"), m))?;
        let settings = |rate_bps| self.settings(rate_bps);
        let make = |s: &MecnSettings, rate_bps, rng| Aqm::Mecn(Mecn::new(self, *s, rate_bps, rng));
        install_seeded(cx, path, &self.ports, "mecn", settings, make)
    }
}
