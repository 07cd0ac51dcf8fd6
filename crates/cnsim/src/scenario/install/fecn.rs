//! Installs FECN (`[protocols.fecn]`): a rate computation on each selected switch port, a
//! probing source and shaper on each selected unicast flow.

use super::{Install, InstallCx};
use crate::l2::fecn::config::{ProbeClass, DEFAULT_PROBE_PRIORITY};
use crate::l2::fecn::rp::ProbeFormat;
use crate::l2::fecn::{CongestionPoint, FecnConfig, Rp, Switch};
use crate::protocol::{AnyCongestionPoint, AnyReactionPoint};
use crate::scenario::periodic::{Periodic, MAX_TIMER_FIRINGS};
use crate::scenario::ScenarioError;
use crate::traffic::Destination;
use crate::units::Size;

impl Install for FecnConfig {
    fn install(&self, fp: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        if !self.enabled {
            return Ok(());
        }
        cx.validate(&format!("{fp}.switch"), &self.switch)?;
        if !matches!(self.switch.qeq, Size::Bytes(_)) {
            return Err(cx.err(
                &format!("{fp}.switch.qeq"),
                format!(
                    "\"{}\" is in frames; expected bytes (FECN measures its queue in bits), e.g. \"24000B\"",
                    self.switch.qeq
                ),
            ));
        }
        if self.t.0 == 0 {
            return Err(cx.err(
                &format!("{fp}.t"),
                "\"0s\" is not a period; expected a positive time, e.g. \"1ms\"".into(),
            ));
        }
        let size = match self.probe_size {
            Size::Bytes(b) if (64..=9216).contains(&b) => b as u32,
            other => {
                return Err(cx.err(
                    &format!("{fp}.probe_size"),
                    format!("\"{other}\" is not a probe size; expected 64 to 9216 bytes, e.g. \"64B\""),
                ))
            }
        };
        let probe_priority = match (self.probe_class, self.probe_priority) {
            (_, Some(p)) if p > 7 => {
                return Err(cx
                    .err(&format!("{fp}.probe_priority"), format!("{p} is not a priority; expected 0 to 7")))
            }
            (ProbeClass::Data, Some(p)) => {
                return Err(cx.err(
                    &format!("{fp}.probe_priority"),
                    format!(
                        "{p} has no effect with probe_class = \"data\" (probes go at their flow's priority); \
                         expected no probe_priority, or probe_class = \"high\""
                    ),
                ))
            }
            (ProbeClass::Data, None) => None,
            (ProbeClass::High, p) => Some(p.unwrap_or(DEFAULT_PROBE_PRIORITY)),
        };
        if let Some(s) = &self.severe {
            let bytes = |key: &str, v: Size, lo: u64, example: &str| match v {
                Size::Bytes(b) if b >= lo && b <= u64::from(u32::MAX) => Ok(()),
                other => Err(cx.err(
                    &format!("{fp}.severe.{key}"),
                    format!("\"{other}\" is out of range; expected at least {lo} bytes, e.g. \"{example}\""),
                )),
            };
            bytes("qsc", s.qsc, 1, "120000B")?;
            bytes("sampling_interval", s.sampling_interval, 1, "150000B")?;
            bytes("bcn_size", s.bcn_size, 64, "64B")?;
        }
        if !(self.source.severe_decrease > 0.0 && self.source.severe_decrease < 1.0) {
            return Err(cx.err(
                &format!("{fp}.source.severe_decrease"),
                format!(
                    "{:?} is out of range; expected a factor in (0, 1), e.g. 0.5",
                    self.source.severe_decrease
                ),
            ));
        }
        let cp_key = format!("{fp}.congestion_points");
        for p in cx.ports(&self.congestion_points, &cp_key)? {
            cx.check_port_rate_floor(p, self.switch.min_rate.0, &format!("{fp}.switch.min_rate"))?;
            let switch = Switch::new(&self.switch, cx.net.ports[p as usize].rate_bps, self.t);
            let severe = self.severe.as_ref().map(|s| crate::l2::fecn::SevereState::new(s, probe_priority));
            cx.attach_congestion_point(
                p,
                AnyCongestionPoint::Fecn(CongestionPoint { switch, severe }),
                &cp_key,
            )?;
        }
        let flows_key = format!("{fp}.flows");
        let flows = cx.flows_of(&self.flows, &flows_key)?;
        if let Some(p) = probe_priority {
            // Every port has `queues.classes` classes, mapped alike: a probe passes a
            // flow's data queues only from a higher class.
            let classes =
                crate::net::Classes::new(cx.scenario.queues.classes, crate::net::Capacity::Frames(1));
            if let Some(&f) = flows
                .iter()
                .find(|&&f| classes.class_of(p) <= classes.class_of(cx.flows[f as usize].priority))
            {
                let flow = &cx.flows[f as usize];
                let (key, why) = if classes.count() == 1 {
                    (
                        format!("{fp}.probe_class"),
                        format!(
                            "\"high\" sends probes at priority {p} in a class above the data's, but with \
                             queues.classes = 1 every priority shares one queue (flow {}'s data included); \
                             expected queues.classes = 2 or more, or probe_class = \"data\"",
                            flow.name
                        ),
                    )
                } else {
                    (
                        format!("{fp}.probe_priority"),
                        format!(
                            "{p} selects class {}, not above class {} of flow {}'s data (priority {}) with \
                             queues.classes = {}; expected a priority of a higher class, e.g. 7",
                            classes.class_of(p),
                            classes.class_of(flow.priority),
                            flow.name,
                            flow.priority,
                            classes.count()
                        ),
                    )
                };
                return Err(cx.err(&key, why));
            }
        }

        // Each flow probes every t for as long as it sends; the switches' rates are
        // recomputed at arrivals, so they add no events of their own.
        cx.bound_period(&Periodic {
            key: &format!("{fp}.t"),
            period: self.t,
            shortest: 1.0,
            instances: flows.len() as u64,
            instance: "flow",
            firings: "probes",
            limit: MAX_TIMER_FIRINGS,
        })?;
        for f in flows {
            cx.check_frame_time(f, self.source.min_rate.0, &format!("{fp}.source.min_rate"))?;
            cx.check_rate_floor(f, self.source.min_rate.0, &format!("{fp}.source.min_rate"))?;
            let flow = &cx.flows[f as usize];
            if !matches!(flow.dst, Destination::Host(_)) {
                let why = "has no single destination to probe; FECN regulates unicast flows to one host";
                return Err(cx.err(&flows_key, format!("flow {} {why}", flow.name)));
            }
            let format =
                ProbeFormat { size, priority: probe_priority.unwrap_or(flow.priority), period: self.t };
            let rp = Rp::new(&self.source, format, flow.line_bps);
            cx.attach_reaction_point(f, AnyReactionPoint::Fecn(rp), &flows_key)?;
        }
        Ok(())
    }
}
