//! What installing a queue discipline takes on every port it names: one discipline per
//! port, thresholds below the buffer they mark in, a random stream per class queue.

use super::InstallCx;
use crate::aqm::{AnyDiscipline, Aqm, Capacity};
use crate::net::PortId;
use crate::scenario::ScenarioError;
use crate::units::select::PortSel;

/// Refuses a marking threshold (`threshold`, at the key `key`) at or above the buffer
/// of a class queue of port `p` counted in the same unit: such a queue never exceeds it,
/// `why` says what follows; `example` is a threshold to suggest.
pub(crate) fn check_below_buffer(
    cx: &InstallCx,
    p: PortId,
    key: &str,
    threshold: crate::units::Size,
    why: &str,
    example: &str,
) -> Result<(), ScenarioError> {
    use crate::units::Size;
    for q in cx.net.ports[p as usize].classes.queues() {
        let capacity = match (threshold, q.capacity) {
            (Size::Frames(_), Capacity::Frames(c)) => Size::Frames(c),
            (Size::Bytes(_), Capacity::Bytes(c)) => Size::Bytes(c),
            _ => continue,
        };
        if threshold.value() >= capacity.value() {
            return Err(cx.err(
                key,
                format!(
                    "\"{threshold}\" is not below the capacity of port \"{}\" ({capacity}): {why}; expected a \
                     threshold below the buffer, e.g. {example}",
                    cx.net.port_name(p)
                ),
            ));
        }
    }
    Ok(())
}

/// Puts the discipline `make(cx, class)` on every class queue of port `p` for the table
/// at `path`, unless another table already put one there.
pub(crate) fn install_on_port(
    cx: &mut InstallCx,
    p: PortId,
    path: &str,
    mut make: impl FnMut(&mut InstallCx, usize) -> AnyDiscipline,
) -> Result<(), ScenarioError> {
    let classes = cx.net.ports[p as usize].classes.queues_mut().count();
    let taken = cx.net.ports[p as usize]
        .classes
        .queues_mut()
        .find(|q| q.discipline != AnyDiscipline::DropTail)
        .map(|q| q.discipline.name());
    if let Some(other) = taken {
        return Err(cx.err(
            &format!("{path}.ports"),
            format!(
                "names port \"{}\", whose queues already run {other}; expected one queue discipline per port",
                cx.net.port_name(p)
            ),
        ));
    }
    for class in 0..classes {
        let d = make(cx, class);
        cx.net.ports[p as usize].classes.queues_mut().nth(class).expect("a class").discipline = d;
    }
    Ok(())
}

/// Puts one discipline per class on every port `ports` names (the table at `path`,
/// random streams keyed by `kind`, port and class): `settings` from the port's link rate,
/// then `make` from the settings, the rate and the class's stream.
pub(crate) fn install_seeded<S>(
    cx: &mut InstallCx,
    path: &str,
    ports: &PortSel,
    kind: &str,
    settings: impl Fn(u64) -> Result<S, (String, String)>,
    make: impl Fn(&S, u64, crate::engine::RngStream) -> Aqm,
) -> Result<(), ScenarioError> {
    for p in cx.ports(ports, &format!("{path}.ports"))? {
        let rate_bps = cx.net.ports[p as usize].rate_bps;
        let s = settings(rate_bps).map_err(|(key, m)| cx.err(&format!("{path}.{key}"), m))?;
        let name = cx.net.port_name(p);
        install_on_port(cx, p, path, |cx, class| {
            AnyDiscipline::Aqm(Box::new(make(&s, rate_bps, cx.rng(kind, &format!("{name}#{class}")))))
        })?;
    }
    Ok(())
}
