//! Installing protocols: each protocol's parameter table is a struct in the protocol's
//! own module, with its cross-field rules ([`Validate`]); its [`Install`], one file here
//! per protocol, checks what needs the built network and attaches the protocol to ports
//! and flows through an [`InstallCx`]. The protocols sit below the scenario and never see
//! it. The builder calls every configured protocol in turn
//! ([`super::schema::Protocols::all`]); adding a protocol needs no edit to the builder or
//! to the error module.

mod aqm;
mod dcqcn;
mod e2cm;
mod ecm;
mod ecn_threshold;
mod fecn;
mod hpcc;
mod mecn;
mod pause;
mod qcn;
mod red;
mod timely;
mod window;

use super::build::{check_frame_time, glob_match, select_ports, some_names};
use super::error::ScenarioError;
use super::periodic::{self, Periodic};
use super::schema::{HostSel, PortSel, Scenario};
use crate::engine::{RngStream, StreamKey, Timers};
use crate::net::{Network, NodeId, PortId, Routes, NONE};
pub use crate::protocol::Validate;
use crate::protocol::{AnyCongestionPoint, AnyReactionPoint, TimerOwner};
use crate::sim::{Protocols, RpRecipe};
use crate::traffic::{Flow, Shaper};

/// What a protocol's parameter table does when the scenario is built.
pub trait Install {
    /// Checks the table's own rules (`path` is its key, e.g. "protocols.qcn") and
    /// installs the protocol.
    fn install(&self, path: &str, cx: &mut InstallCx) -> Result<(), ScenarioError>;
}

/// The built network and flows, as protocols see them while being installed.
pub struct InstallCx<'a> {
    /// The scenario.
    pub(crate) scenario: &'a Scenario,
    /// The scenario file's name, for errors.
    pub(crate) file: &'a str,
    /// The network (ports, queues).
    pub(crate) net: &'a mut Network,
    /// The routes, for the paths of flows.
    pub(crate) routes: &'a Routes,
    /// The flows.
    pub(crate) flows: &'a mut [Flow],
    /// The traffic entry (index into `scenario.traffic`) of each flow.
    pub(crate) flow_entry: &'a [usize],
    /// The protocols installed so far.
    pub(crate) protocols: &'a mut Protocols,
    /// Timers of the run.
    pub(crate) timers: &'a mut Timers<TimerOwner>,
    /// The slowest link's rate and the key that sets it.
    pub(crate) slowest_link: Option<(u64, String)>,
    /// The flows workloads, whose flows are built as they start: a protocol for their
    /// flows sets their entry's recipe.
    pub(crate) workloads: &'a mut crate::sim::Workloads,
}

impl InstallCx<'_> {
    /// A located error.
    pub fn err(&self, path: &str, message: String) -> ScenarioError {
        ScenarioError::new(self.file, path, message)
    }

    /// The random stream of one protocol element (a CP, an RP), by kind and name.
    pub fn rng(&self, kind: &str, name: &str) -> RngStream {
        RngStream::new(self.scenario.seed, StreamKey { kind, name })
    }

    /// The ports a selection names (`path` locates it).
    pub fn ports(&self, sel: &PortSel, path: &str) -> Result<Vec<PortId>, ScenarioError> {
        select_ports(sel, self.net, path, self.file)
    }

    /// Which traffic entries a selection names by name or pattern ("*" for all).
    fn entries_of(&self, sel: &HostSel, path: &str) -> Result<Vec<bool>, ScenarioError> {
        let traffic = &self.scenario.traffic;
        let mut chosen = vec![false; traffic.len()];
        for (k, pattern) in sel.0.iter().enumerate() {
            let p = if sel.0.len() == 1 { path.to_string() } else { format!("{path}[{k}]") };
            let mut any = false;
            for (i, t) in traffic.iter().enumerate() {
                if glob_match(pattern, &t.name) {
                    chosen[i] = true;
                    any = true;
                }
            }
            if !any {
                return Err(self.err(
                    &p,
                    format!(
                        "\"{pattern}\" names no traffic entry; expected a traffic name or pattern \
                         (\"*\" for all) among {}",
                        some_names(traffic.iter().map(|t| t.name.as_str()))
                    ),
                ));
            }
        }
        Ok(chosen)
    }

    /// The flows of the traffic entries a selection names by name or pattern ("*" for
    /// all), in flow order, for a protocol that flows workloads cannot take.
    pub fn flows_of(&self, sel: &HostSel, path: &str) -> Result<Vec<u32>, ScenarioError> {
        let (flows, workloads) = self.flows_and_workloads_of(sel, path)?;
        if let Some(&w) = workloads.first() {
            return Err(self.err(
                path,
                format!(
                    "\"{}\" is a flows workload; expected traffic entries of other kinds (a workload's flows \
                     take DCQCN, HPCC or TIMELY)",
                    self.workloads.entries[w].name
                ),
            ));
        }
        Ok(flows)
    }

    /// The flows of the traffic entries a selection names, in flow order, and the flows
    /// workloads among those entries (indices into `workloads.entries`).
    pub fn flows_and_workloads_of(
        &self,
        sel: &HostSel,
        path: &str,
    ) -> Result<(Vec<u32>, Vec<usize>), ScenarioError> {
        let chosen = self.entries_of(sel, path)?;
        let flows = (0..self.flows.len() as u32).filter(|&f| chosen[self.flow_entry[f as usize]]).collect();
        let workloads = (0..self.workloads.entries.len())
            .filter(|&w| chosen[self.workloads.entries[w].traffic as usize])
            .collect();
        Ok((flows, workloads))
    }

    /// The arrivals of workload `w`: source and destination hosts, and ECMP key.
    pub fn arrivals(&self, w: usize) -> impl Iterator<Item = (NodeId, NodeId, u32)> + '_ {
        let e = &self.workloads.entries[w];
        (e.first_key..).zip(self.workload_records(w)).map(|(key, r)| (r.src, r.dst, key))
    }

    /// The records of workload `w`'s arrivals.
    pub fn workload_records(&self, w: usize) -> &[crate::metrics::fct::FctRecord] {
        let e = &self.workloads.entries[w];
        &self.workloads.records[e.first as usize..(e.first + e.count) as usize]
    }

    /// Checks a reaction point's rate floor `rate` (which `at` names) against the line
    /// rate of every source of workload `w`, as [`InstallCx::check_rate_floor`].
    pub fn check_workload_rate_floor(&self, w: usize, rate: u64, at: &str) -> Result<(), ScenarioError> {
        let mut seen = vec![false; self.net.nodes.len()];
        for (src, _, _) in self.arrivals(w) {
            if std::mem::replace(&mut seen[src as usize], true) {
                continue;
            }
            let who = || {
                format!(
                    "the flows of {} from {}",
                    self.workloads.entries[w].name, self.net.nodes[src as usize].name
                )
            };
            self.check_floor_below_line(rate, self.net.first_link_rate(src), who, at)?;
        }
        Ok(())
    }

    /// Checks that workload `w`'s frames take at most [`MAX_TIME`] at `rate`, as
    /// [`InstallCx::check_frame_time`].
    pub fn check_workload_frame_time(&self, w: usize, rate: u64, at: &str) -> Result<(), ScenarioError> {
        let ti = self.workloads.entries[w].traffic as usize;
        check_frame_time(&self.scenario.traffic[ti], ti, rate, at, self.file)
    }

    /// The hosts a selection names by name or pattern.
    pub fn hosts(&self, sel: &HostSel, path: &str) -> Result<Vec<NodeId>, ScenarioError> {
        let net = &*self.net;
        let hosts = net.hosts();
        let mut out = Vec::new();
        for (k, pattern) in sel.0.iter().enumerate() {
            let p = if sel.0.len() == 1 { path.to_string() } else { format!("{path}[{k}]") };
            let matched: Vec<NodeId> =
                hosts.iter().copied().filter(|&h| glob_match(pattern, &net.nodes[h as usize].name)).collect();
            if matched.is_empty() {
                let names = hosts.iter().map(|&h| net.nodes[h as usize].name.as_str());
                return Err(self.err(
                    &p,
                    format!(
                        "\"{pattern}\" matches no host; expected a host name or pattern among {}",
                        some_names(names)
                    ),
                ));
            }
            for h in matched {
                if !out.contains(&h) {
                    out.push(h);
                }
            }
        }
        Ok(out)
    }

    /// Refuses a periodic timer that would fire too often over the run (see
    /// [`periodic`]).
    pub fn bound_period(&self, p: &Periodic) -> Result<(), ScenarioError> {
        periodic::check(p, self.scenario.duration, self.file)
    }

    /// Checks that flow `f`'s frames take at most [`MAX_TIME`] at `rate` (which `at`
    /// names), so that no time formed from frame times can overflow.
    pub fn check_frame_time(&self, f: u32, rate: u64, at: &str) -> Result<(), ScenarioError> {
        let ti = self.flow_entry[f as usize];
        check_frame_time(&self.scenario.traffic[ti], ti, rate, at, self.file)
    }

    /// Checks that a reaction point's rate floor `rate` (which `at` names) is at most
    /// flow `f`'s line rate: a source never sends faster than its host's link, so a
    /// floor above it cannot be kept.
    pub fn check_rate_floor(&self, f: u32, rate: u64, at: &str) -> Result<(), ScenarioError> {
        let flow = &self.flows[f as usize];
        self.check_floor_below_line(rate, flow.line_bps, || format!("flow {}", flow.name), at)
    }

    /// Checks that a reaction point's rate floor `rate` (which `at` names) is at most
    /// `line`, the line rate of what `who` names.
    fn check_floor_below_line(
        &self,
        rate: u64,
        line: u64,
        who: impl FnOnce() -> String,
        at: &str,
    ) -> Result<(), ScenarioError> {
        if rate <= line {
            return Ok(());
        }
        Err(self.err(
            at,
            format!(
                "\"{}\" is above the line rate of {} ({}); expected a rate floor at most the line rate of \
                 every flow it applies to",
                crate::units::Rate(rate),
                who(),
                crate::units::Rate(line)
            ),
        ))
    }

    /// Checks that a congestion point's rate floor `rate` (which `at` names) is at most
    /// port `p`'s link rate, the most it can ever advertise.
    pub fn check_port_rate_floor(&self, p: PortId, rate: u64, at: &str) -> Result<(), ScenarioError> {
        let link = self.net.ports[p as usize].rate_bps;
        if rate <= link {
            return Ok(());
        }
        Err(self.err(
            at,
            format!(
                "\"{}\" is above the rate of port {} ({}); expected a rate floor at most the link \
                 rate of every congestion point",
                crate::units::Rate(rate),
                self.net.port_name(p),
                crate::units::Rate(link)
            ),
        ))
    }
}

impl InstallCx<'_> {
    /// Validates `table` found at `path`.
    pub fn validate(&self, path: &str, table: &dyn Validate) -> Result<(), ScenarioError> {
        table.validate().map_err(|(key, message)| self.err(&format!("{path}.{key}"), message))
    }

    /// Attaches congestion point `cp` to port `p`, selected by the key `path`; a port has
    /// one congestion point, of one protocol.
    pub fn attach_congestion_point(
        &mut self,
        p: PortId,
        cp: AnyCongestionPoint,
        path: &str,
    ) -> Result<(), ScenarioError> {
        if self.net.ports[p as usize].cp != NONE {
            return Err(self.err(
                path,
                format!(
                    "port {} already has a congestion point; expected one protocol per port",
                    self.net.port_name(p)
                ),
            ));
        }
        self.net.ports[p as usize].cp = self.protocols.congestion_points.len() as u32;
        self.protocols.congestion_points.push(cp);
        Ok(())
    }

    /// Gives the flows of workload `w`, selected by the key `path`, reaction points as
    /// `rp` makes them; a flow has one reaction point, of one protocol.
    pub fn set_workload_rp(&mut self, w: usize, rp: RpRecipe, path: &str) -> Result<(), ScenarioError> {
        let e = &mut self.workloads.entries[w];
        if !matches!(e.recipe.rp, RpRecipe::None) {
            let message = format!(
                "the flows of {} already have a reaction point; expected one protocol per flow",
                e.name
            );
            return Err(self.err(path, message));
        }
        e.recipe.rp = rp;
        Ok(())
    }

    /// Attaches reaction point `rp` to flow `f`, selected by the key `path`, with a
    /// shaper at the reaction point's rate; a flow has one reaction point, of one
    /// protocol.
    pub fn attach_reaction_point(
        &mut self,
        f: u32,
        rp: AnyReactionPoint,
        path: &str,
    ) -> Result<(), ScenarioError> {
        let flow = &self.flows[f as usize];
        if flow.rp != NONE {
            let message =
                format!("flow {} already has a reaction point; expected one protocol per flow", flow.name);
            return Err(self.err(path, message));
        }
        let multicast = matches!(flow.dst, crate::traffic::Destination::Tree { .. });
        let flow = &mut self.flows[f as usize];
        flow.shaper = Some(Box::new(Shaper::new(rp.current_rate(), flow.source_queue)));
        flow.rp = self.protocols.reaction_points.len() as u32;
        flow.rp_stamps = rp.stamps(multicast);
        self.protocols.reaction_points.push(rp);
        Ok(())
    }
}
