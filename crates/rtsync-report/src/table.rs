//! Plain-text tables with aligned columns.

/// Rows of cells under a header; [`Table::render`] pads each column to
/// its widest cell (right-aligned unless [`Table::left`]).
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    right: Vec<bool>,
}

impl Table {
    /// A table with these column names and no rows.
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
            right: vec![true; header.len()],
        }
    }
    /// Left-align column `c` (text columns); numbers stay right-aligned.
    pub fn left(mut self, c: usize) -> Table {
        self.right[c] = false;
        self
    }
    /// Appends a row (cells beyond the header's count are dropped).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }
    /// The header, a rule, then the rows, one line each.
    pub fn render(&self) -> String {
        let n = self.header.len();
        let mut w = vec![0; n];
        for r in std::iter::once(&self.header).chain(&self.rows) {
            for (i, c) in r.iter().enumerate().take(n) {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let mut out = String::new();
        let line = |r: &Vec<String>, out: &mut String| {
            let mut s = String::new();
            for (i, c) in r.iter().enumerate().take(n) {
                if i > 0 {
                    s.push_str("  ");
                }
                let pad = w[i] - c.chars().count();
                if self.right[i] {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    s.push_str(&" ".repeat(pad));
                }
            }
            out.push_str(s.trim_end());
            out.push('\n');
        };
        line(&self.header, &mut out);
        let total: usize = w.iter().sum::<usize>() + 2 * (n - 1);
        out.push_str(&"-".repeat(total));
        out.push('\n');
        for r in &self.rows {
            line(r, &mut out);
        }
        out
    }
}

/// A measured duration for a table cell: ms with three decimals from 1 ms
/// up, us with one decimal below.
pub fn duration(d: std::time::Duration) -> String {
    if d >= std::time::Duration::from_millis(1) {
        format!("{:.3}ms", d.as_secs_f64() * 1e3)
    } else {
        format!("{:.1}us", d.as_secs_f64() * 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_to_their_widest_cell() {
        let mut t = Table::new(&["task", "ms"]).left(0);
        t.row(vec!["control".into(), "1.5".into()]);
        t.row(vec!["é".into(), "12.25".into(), "dropped".into()]);
        assert_eq!(
            t.render(),
            "task        ms\n--------------\ncontrol    1.5\né        12.25\n"
        );
        assert_eq!(duration(std::time::Duration::from_micros(1500)), "1.500ms");
        assert_eq!(duration(std::time::Duration::from_nanos(2_340)), "2.3us");
    }
}
