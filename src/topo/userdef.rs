//! User-defined mappings (seed 000 §4.2.4, "User-defined Mapping"): a mapping string
//! `name(x1,…,xm) = [y1,…,yn].` evaluated by [`crate::expr`] for every virtual processor.
//! Shared by `cpss --mapping 'EXPR'` and `cpmap`.
use super::mapping::{MapError, Mapping};
use super::Topology;
use crate::expr::MappingExpr;

/// Whether a `--mapping` argument is a mapping string rather than a built-in name.
pub fn looks_like_expr(s: &str) -> bool {
    s.contains('(') || s.contains('[')
}

fn coords_text(c: &[u32]) -> String {
    let parts: Vec<String> = c.iter().map(|v| v.to_string()).collect();
    format!("({})", parts.join(","))
}

/// Evaluates a mapping string for every virtual processor of `virt` and returns the table.
/// Errors name the virtual processor and its coordinates; parse errors carry the column.
pub fn mapping_from_expr(text: &str, virt: &Topology, phys: &Topology) -> Result<Mapping, MapError> {
    let expr = MappingExpr::parse(text).map_err(|e| MapError::Expr { rendered: e.render(text) })?;
    let vshape: Vec<i64> = virt.shape().iter().map(|&d| d as i64).collect();
    let pshape: Vec<i64> = phys.shape().iter().map(|&d| d as i64).collect();
    expr.check(vshape.len(), pshape.len()).map_err(|e| MapError::Expr { rendered: e.render(text) })?;
    let mut table = Vec::with_capacity(virt.nodes() as usize);
    let mut vc = vec![0i64; vshape.len()];
    let mut out = vec![0i64; pshape.len()];
    let mut pc = vec![0u32; pshape.len()];
    for v in 0..virt.nodes() {
        let coords = virt.coords(v);
        for (slot, &c) in vc.iter_mut().zip(&coords) {
            *slot = c as i64;
        }
        expr.eval(&vc, &vshape, &pshape, &mut out).map_err(|e| MapError::Eval {
            vproc: v,
            coords: coords_text(&coords),
            rendered: e.render(text),
        })?;
        let fits = out.iter().zip(&pshape).all(|(&y, &d)| y >= 0 && y < d);
        if !fits {
            let parts: Vec<String> = out.iter().map(|y| y.to_string()).collect();
            return Err(MapError::OutsidePhysical {
                vproc: v,
                coords: coords_text(&coords),
                result: format!("[{}]", parts.join(",")),
                phys: phys.to_string(),
            });
        }
        for (slot, &y) in pc.iter_mut().zip(&out) {
            *slot = y as u32;
        }
        let id = phys.id_of(&pc).ok_or_else(|| MapError::OutsidePhysical {
            vproc: v,
            coords: coords_text(&coords),
            result: format!("{pc:?}"),
            phys: phys.to_string(),
        })?;
        table.push(id);
    }
    Ok(Mapping::new(table))
}

/// A mapping by built-in name or mapping string.
pub fn resolve_mapping(spec: &str, virt: &Topology, phys: &Topology, seed: u64) -> Result<Mapping, MapError> {
    if looks_like_expr(spec) {
        mapping_from_expr(spec, virt, phys)
    } else {
        super::builtin_mapping(spec, virt, phys, seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Topology {
        Topology::parse(s).unwrap()
    }

    /// The seed's torus2mesh string equals the built-in torus2mesh on 8x8 and 16x16.
    #[test]
    fn seed_string_equals_builtin_torus2mesh() {
        let s = "torus2mesh(x, y) = [x <= (#1-1)/2 ? 2*x : 2*(#1-x)-1, y<=(#2-1)/2 ? 2*y : 2*(#2-y)-1].";
        for n in [8, 16] {
            let (v, p) = (t(&format!("torus:{n}x{n}")), t(&format!("mesh:{n}x{n}")));
            let from_string = mapping_from_expr(s, &v, &p).unwrap();
            let builtin = super::super::builtin_mapping("torus2mesh", &v, &p, 0).unwrap();
            assert_eq!(from_string.table, builtin.table, "{n}x{n}");
        }
    }

    /// The block form puts 16 virtual processors of a 16x16 torus on each of 4x4 physical.
    #[test]
    fn block_form_is_sixteen_to_one() {
        let m = mapping_from_expr("block(x, y) = [x/(#1/$1), y/(#2/$2)].", &t("torus:16x16"), &t("mesh:4x4")).unwrap();
        let mut load = [0u32; 16];
        for &p in &m.table {
            load[p as usize] += 1;
        }
        assert_eq!(load, [16; 16]);
        // (5, 13) → (5/4, 13/4) = (1, 3) → id 1*4 + 3 = 7.
        assert_eq!(m.table[5 * 16 + 13], 7);
    }

    #[test]
    fn out_of_range_names_the_virtual_processor() {
        let e = mapping_from_expr("f(x, y) = [x + 1, y].", &t("mesh:4x4"), &t("mesh:4x4")).unwrap_err();
        // The first virtual processor with x + 1 = 4 is (3,0) = id 12.
        assert_eq!(
            e.to_string(),
            "virtual processor 12 (3,0) is mapped to [4,0], outside the physical architecture mesh:4x4"
        );
    }

    #[test]
    fn syntax_error_shows_the_column() {
        let e = mapping_from_expr("f(x, y) = [x, ].", &t("mesh:4x4"), &t("mesh:4x4")).unwrap_err();
        assert!(e.to_string().contains("mapping:1:15"), "{e}");
    }

    #[test]
    fn division_by_zero_names_the_virtual_processor() {
        let e = mapping_from_expr("f(x) = [8 / x].", &t("ring:8"), &t("line:9")).unwrap_err();
        assert!(e.to_string().starts_with("virtual processor 0 (0): "), "{e}");
    }
}
