//! Reproductions of published experiments (`cnsim reproduce <name>`).
