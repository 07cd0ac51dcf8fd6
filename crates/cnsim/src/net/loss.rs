//! Random loss on links: a frame a port sends may be lost on the wire.
//!
//! `queues.loss` gives every port a loss process and `queues.ports[].loss` one port;
//! either is a probability (Bernoulli: each frame lost independently) or a
//! Gilbert–Elliott table (a two-state Markov chain, one step per frame, with a loss
//! probability in each state: Gilbert 1960, Elliott 1963; the symbols p, r, 1 − k and
//! 1 − h of the literature are `good_to_bad`, `bad_to_good`, `loss_in_good` and
//! `loss_in_bad`). A lost frame occupies the link for its serialization time (it was
//! sent) and never reaches the next node: it is counted where it was lost, apart from
//! queue drops, and frame conservation stays exact. Each port draws from its own seeded
//! stream, named by the port, so adding a lossy link leaves every other draw unchanged.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::engine::{RngStream, StreamKey};

/// A link's loss process, as the scenario gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossSpec {
    /// Each frame is lost with this probability, independently (Bernoulli).
    Bernoulli(f64),
    /// A Gilbert–Elliott chain.
    GilbertElliott(GilbertElliott),
}

/// The Gilbert–Elliott chain's parameters. The chain starts in the good state; at each
/// frame it first moves (good → bad with `good_to_bad`, bad → good with `bad_to_good`),
/// then the frame is lost with the new state's loss probability. The mean loss is
/// (π_g·loss_in_good + π_b·loss_in_bad) with π_b = good_to_bad / (good_to_bad +
/// bad_to_good), and a bad spell lasts 1 / bad_to_good frames on average.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliott {
    /// Probability of moving from the good to the bad state at a frame (p).
    pub(crate) good_to_bad: f64,
    /// Probability of moving from the bad to the good state at a frame (r).
    pub(crate) bad_to_good: f64,
    /// Loss probability in the good state (1 − k; 0 in Gilbert's original model).
    #[serde(default)]
    pub(crate) loss_in_good: f64,
    /// Loss probability in the bad state (1 − h; 1 in Gilbert's original model).
    #[serde(default = "one")]
    pub(crate) loss_in_bad: f64,
}

fn one() -> f64 {
    1.0
}

impl LossSpec {
    /// The long-run fraction of frames lost.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossSpec::Bernoulli(p) => p,
            LossSpec::GilbertElliott(g) => {
                let moves = g.good_to_bad + g.bad_to_good;
                if moves == 0.0 {
                    return g.loss_in_good;
                }
                let bad = g.good_to_bad / moves;
                (1.0 - bad) * g.loss_in_good + bad * g.loss_in_bad
            }
        }
    }

    /// `Ok`, or the failing key (relative to the loss value: "" for a probability) and
    /// what was expected.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let probability = |key: &str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err((key.to_string(), format!("{v:?} is not a probability; expected a number in [0, 1]")))
            }
        };
        match *self {
            LossSpec::Bernoulli(p) => probability("", p),
            LossSpec::GilbertElliott(g) => {
                probability("good_to_bad", g.good_to_bad)?;
                probability("bad_to_good", g.bad_to_good)?;
                probability("loss_in_good", g.loss_in_good)?;
                probability("loss_in_bad", g.loss_in_bad)
            }
        }
    }
}

impl fmt::Display for LossSpec {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            LossSpec::Bernoulli(p) => write!(f, "{p}"),
            LossSpec::GilbertElliott(g) => write!(
                f,
                "{{ good_to_bad = {}, bad_to_good = {}, loss_in_good = {}, loss_in_bad = {} }}",
                g.good_to_bad, g.bad_to_good, g.loss_in_good, g.loss_in_bad
            ),
        }
    }
}

impl Serialize for LossSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LossSpec::Bernoulli(p) => s.serialize_f64(*p),
            LossSpec::GilbertElliott(g) => g.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for LossSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LossSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(
                    f,
                    "a probability such as 0.001, or {{ good_to_bad = 0.01, bad_to_good = 0.3, \
                     loss_in_good = 0.0, loss_in_bad = 1.0 }}"
                )
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<LossSpec, E> {
                Ok(LossSpec::Bernoulli(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LossSpec, E> {
                Ok(LossSpec::Bernoulli(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LossSpec, E> {
                Ok(LossSpec::Bernoulli(v as f64))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<LossSpec, A::Error> {
                GilbertElliott::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(LossSpec::GilbertElliott)
            }
        }
        d.deserialize_any(V)
    }
}

/// A port's loss process in a run: its parameters, its state and its stream.
#[derive(Clone, Debug)]
pub struct LinkLoss {
    spec: LossSpec,
    /// The Gilbert–Elliott chain is in its bad state.
    bad: bool,
    rng: RngStream,
    /// Frames lost on this link.
    pub lost: u64,
}

impl LinkLoss {
    /// The loss process of the port named `port` under scenario seed `seed`.
    pub fn new(spec: LossSpec, seed: u64, port: &str) -> Self {
        LinkLoss {
            spec,
            bad: false,
            rng: RngStream::new(seed, StreamKey { kind: "loss", name: port }),
            lost: 0,
        }
    }

    /// The parameters.
    pub fn spec(&self) -> LossSpec {
        self.spec
    }

    /// Whether the next frame on the link is lost (one step of the process per frame).
    #[inline]
    pub fn lose(&mut self) -> bool {
        let p = match self.spec {
            LossSpec::Bernoulli(p) => p,
            LossSpec::GilbertElliott(g) => {
                let flip = if self.bad { g.bad_to_good } else { g.good_to_bad };
                if flip > 0.0 && self.rng.uniform() < flip {
                    self.bad = !self.bad;
                }
                if self.bad {
                    g.loss_in_bad
                } else {
                    g.loss_in_good
                }
            }
        };
        // No draw where the outcome is certain: a lossless state costs nothing.
        let lost = p >= 1.0 || (p > 0.0 && self.rng.uniform() < p);
        self.lost += u64::from(lost);
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<LossSpec, String> {
        #[derive(Deserialize)]
        struct T {
            loss: LossSpec,
        }
        toml::from_str::<T>(text).map(|t| t.loss).map_err(|e| e.to_string())
    }

    #[test]
    fn a_probability_or_a_table() {
        assert_eq!(parse("loss = 0.001"), Ok(LossSpec::Bernoulli(0.001)));
        assert_eq!(parse("loss = 0"), Ok(LossSpec::Bernoulli(0.0)));
        let g = parse("loss = { good_to_bad = 0.01, bad_to_good = 0.25 }").unwrap();
        let expected =
            GilbertElliott { good_to_bad: 0.01, bad_to_good: 0.25, loss_in_good: 0.0, loss_in_bad: 1.0 };
        assert_eq!(g, LossSpec::GilbertElliott(expected));
        assert!(parse("loss = { good_to_bad = 0.01 }").unwrap_err().contains("bad_to_good"));
        assert!(parse("loss = { p = 0.01 }").unwrap_err().contains("unknown field `p`"));
        assert!(parse("loss = \"1%\"").unwrap_err().contains("expected a probability such as 0.001"));
        assert_eq!(LossSpec::Bernoulli(1.5).validate().unwrap_err().0, "");
        let bad = LossSpec::GilbertElliott(GilbertElliott { bad_to_good: -0.1, ..expected });
        assert_eq!(bad.validate().unwrap_err().0, "bad_to_good");
    }

    /// Gilbert's model with p = 0.01, r = 0.25: π_b = 0.01 / 0.26 = 0.03846, all of it
    /// lost; bad spells of 1 / 0.25 = 4 frames on average.
    #[test]
    fn gilbert_elliott_by_hand() {
        let g = GilbertElliott { good_to_bad: 0.01, bad_to_good: 0.25, loss_in_good: 0.0, loss_in_bad: 1.0 };
        let spec = LossSpec::GilbertElliott(g);
        assert!((spec.mean_loss() - 0.01 / 0.26).abs() < 1e-12);
        let mut link = LinkLoss::new(spec, 1, "a->b");
        let n = 400_000;
        let (mut lost, mut spells, mut previous) = (0u64, 0u64, false);
        for _ in 0..n {
            let l = link.lose();
            lost += u64::from(l);
            spells += u64::from(l && !previous);
            previous = l;
        }
        assert_eq!(link.lost, lost);
        let rate = lost as f64 / n as f64;
        assert!((rate - 0.03846).abs() < 0.003, "{rate}");
        let spell = lost as f64 / spells as f64;
        assert!((spell - 4.0).abs() < 0.2, "{spell}");
    }

    /// Bernoulli(p): the loss rate is p, and losses do not cluster (the chance that a
    /// loss follows a loss is p too).
    #[test]
    fn bernoulli_by_hand() {
        let mut link = LinkLoss::new(LossSpec::Bernoulli(0.1), 7, "x->y");
        let (mut lost, mut pairs, mut previous) = (0u64, 0u64, false);
        for _ in 0..200_000 {
            let l = link.lose();
            lost += u64::from(l);
            pairs += u64::from(l && previous);
            previous = l;
        }
        let rate = lost as f64 / 200_000.0;
        assert!((rate - 0.1).abs() < 0.004, "{rate}");
        assert!((pairs as f64 / lost as f64 - 0.1).abs() < 0.01);
        // Certain outcomes draw nothing: the stream is where it was.
        let mut never = LinkLoss::new(LossSpec::Bernoulli(0.0), 7, "x->y");
        let mut always = LinkLoss::new(LossSpec::Bernoulli(1.0), 7, "x->y");
        assert!((0..10).all(|_| !never.lose() && always.lose()));
        assert_eq!(never.rng, RngStream::new(7, StreamKey { kind: "loss", name: "x->y" }));
    }
}
