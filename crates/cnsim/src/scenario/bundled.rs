//! Scenarios compiled into the binary: the benchmark references and examples. The files
//! live in the repository's `scenarios/` folder, where a user can read and copy them.

/// (name, TOML text) of every bundled scenario.
pub const BUNDLED: &[(&str, &str)] = &[
    ("dumbbell-cbr-64", include_str!("../../../../scenarios/dumbbell-cbr-64.toml")),
    ("dumbbell-tcp-64", include_str!("../../../../scenarios/dumbbell-tcp-64.toml")),
    ("devkota2010-incast", include_str!("../../../../scenarios/devkota2010/incast.toml")),
    ("sridharan2004-increase", include_str!("../../../../scenarios/sridharan2004/increase.toml")),
    ("sridharan2004-decrease", include_str!("../../../../scenarios/sridharan2004/decrease.toml")),
    ("sridharan2004-dumbbell", include_str!("../../../../scenarios/sridharan2004/dumbbell.toml")),
    ("sridharan2004-parking-lot", include_str!("../../../../scenarios/sridharan2004/parking-lot.toml")),
    ("dctcp-dumbbell", include_str!("../../../../scenarios/dctcp-dumbbell.toml")),
    ("dcqcn-incast", include_str!("../../../../scenarios/dcqcn-incast.toml")),
    ("dcqcn-victim", include_str!("../../../../scenarios/dcqcn-victim.toml")),
    ("rdma-incast", include_str!("../../../../scenarios/rdma-incast.toml")),
    ("hpcc-incast", include_str!("../../../../scenarios/hpcc-incast.toml")),
    ("timely-incast", include_str!("../../../../scenarios/timely-incast.toml")),
    ("fattree-websearch", include_str!("../../../../scenarios/fattree-websearch.toml")),
    ("fattree-k8-poisson", include_str!("../../../../scenarios/fattree-k8-poisson.toml")),
    ("hpcc320-websearch", include_str!("../../../../scenarios/hpcc320-websearch.toml")),
    ("hpcc2019-dcqcn", include_str!("../../../../scenarios/hpcc2019/dcqcn.toml")),
    ("hpcc2019-dcqcn-win", include_str!("../../../../scenarios/hpcc2019/dcqcn-win.toml")),
    ("hpcc2019-timely", include_str!("../../../../scenarios/hpcc2019/timely.toml")),
    ("hpcc2019-timely-win", include_str!("../../../../scenarios/hpcc2019/timely-win.toml")),
    ("hpcc2019-dctcp", include_str!("../../../../scenarios/hpcc2019/dctcp.toml")),
    ("hpcc2019-hpcc", include_str!("../../../../scenarios/hpcc2019/hpcc.toml")),
    ("dumbbell-qcn-64", include_str!("../../../../scenarios/dumbbell-qcn-64.toml")),
    ("dumbbell-cbr-4096", include_str!("../../../../scenarios/dumbbell-cbr-4096.toml")),
    ("chain-10x3", include_str!("../../../../scenarios/chain-10x3.toml")),
    ("star-multicast", include_str!("../../../../scenarios/star-multicast.toml")),
    ("uniform-onoff", include_str!("../../../../scenarios/uniform-onoff.toml")),
    ("mliki2016-star", include_str!("../../../../scenarios/mliki2016/star.toml")),
    ("mliki2016-multilink", include_str!("../../../../scenarios/mliki2016/multilink.toml")),
    ("roeck2007-baseline", include_str!("../../../../scenarios/roeck2007/baseline.toml")),
    ("roeck2007-test1", include_str!("../../../../scenarios/roeck2007/test1.toml")),
    ("roeck2007-test1-pairs", include_str!("../../../../scenarios/roeck2007/test1-pairs.toml")),
    ("roeck2007-test2", include_str!("../../../../scenarios/roeck2007/test2.toml")),
    ("roeck2007-test3", include_str!("../../../../scenarios/roeck2007/test3.toml")),
    ("roeck2007-test5", include_str!("../../../../scenarios/roeck2007/test5.toml")),
    ("roeck2007-test6", include_str!("../../../../scenarios/roeck2007/test6.toml")),
    ("roeck2007-test7", include_str!("../../../../scenarios/roeck2007/test7.toml")),
    ("roeck2007-test8", include_str!("../../../../scenarios/roeck2007/test8.toml")),
    ("roeck2007-test9", include_str!("../../../../scenarios/roeck2007/test9.toml")),
    ("roeck2007-test10", include_str!("../../../../scenarios/roeck2007/test10.toml")),
];

/// The text of bundled scenario `name`.
pub fn get(name: &str) -> Option<&'static str> {
    let name = name.strip_suffix(".toml").unwrap_or(name);
    BUNDLED.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Names of the bundled scenarios.
pub fn names() -> impl Iterator<Item = &'static str> {
    BUNDLED.iter().map(|(n, _)| *n)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_bundled_scenario_loads_and_builds() {
        for (name, text) in super::BUNDLED {
            let s = crate::scenario::parse(text, name, &[]).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(&s.name, name);
            crate::scenario::build(&s, name).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
