//! Installs the ECN threshold marker (`[protocols.ecn_threshold]`) on the class queues of
//! every port it names.

use super::aqm::{check_below_buffer, install_on_port};
use super::{Install, InstallCx};
use crate::aqm::ecn_threshold::{EcnThreshold, EcnThresholdParams};
use crate::aqm::AnyDiscipline;
use crate::scenario::ScenarioError;

impl Install for EcnThresholdParams {
    fn install(&self, path: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        for p in cx.ports(&self.ports, &format!("{path}.ports"))? {
            check_below_buffer(
                cx,
                p,
                &format!("{path}.k"),
                self.k,
                "the queue never holds more than K, so nothing would be marked",
                "\"65 frames\" (DCTCP at 10 Gbit/s)",
            )?;
            install_on_port(cx, p, path, |_, _| AnyDiscipline::EcnThreshold(EcnThreshold::new(self.k)))?;
        }
        Ok(())
    }
}
