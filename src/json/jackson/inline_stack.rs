//! A stack whose first few entries live in place: the reader's nesting and
//! the repeated-name check's hashes.
//!
//! A tool loop reads every response text of every request, and most are
//! shallow objects of a few names: a `Vec` would allocate (and free) on
//! every read for what fits in a few words. Past `N` entries the stack
//! moves to a `Vec`, so deep or wide texts cost what they did.

/// Up to `N` entries in place, then all of them in a `Vec`.
pub(super) struct InlineStack<T, const N: usize> {
    inline: [T; N],
    /// Entries in `inline` (while not spilled).
    len: usize,
    /// Every entry, once there were more than `N`.
    spilled: Option<Vec<T>>,
}

impl<T: Copy + Default, const N: usize> Default for InlineStack<T, N> {
    fn default() -> Self {
        InlineStack {
            inline: [T::default(); N],
            len: 0,
            spilled: None,
        }
    }
}

impl<T: Copy + Default, const N: usize> InlineStack<T, N> {
    pub(super) fn push(&mut self, v: T) {
        match &mut self.spilled {
            Some(all) => all.push(v),
            None if self.len < N => {
                self.inline[self.len] = v;
                self.len += 1;
            }
            None => {
                let mut all = Vec::with_capacity(2 * N);
                all.extend_from_slice(&self.inline);
                all.push(v);
                self.spilled = Some(all);
            }
        }
    }

    pub(super) fn pop(&mut self) -> Option<T> {
        match &mut self.spilled {
            Some(all) => all.pop(),
            None => {
                self.len = self.len.checked_sub(1)?;
                Some(self.inline[self.len])
            }
        }
    }

    pub(super) fn last(&self) -> Option<&T> {
        self.as_slice().last()
    }

    pub(super) fn len(&self) -> usize {
        self.as_slice().len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(super) fn truncate(&mut self, n: usize) {
        match &mut self.spilled {
            Some(all) => all.truncate(n),
            None => self.len = self.len.min(n),
        }
    }

    pub(super) fn as_slice(&self) -> &[T] {
        match &self.spilled {
            Some(all) => all,
            None => &self.inline[..self.len],
        }
    }

    pub(super) fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.spilled {
            Some(all) => all,
            None => &mut self.inline[..self.len],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::InlineStack;

    /// The stack reads as a `Vec` pushed and popped alike, in place and
    /// after it moved to the heap.
    #[test]
    fn reads_as_a_vec_across_the_move_to_the_heap() {
        let mut s: InlineStack<u32, 3> = InlineStack::default();
        let mut v: Vec<u32> = Vec::new();
        let ops = [1, 2, 0, 3, 4, 5, 6, 0, 0, 7, 0, 0, 0, 0, 0, 8];
        for (i, op) in ops.into_iter().enumerate() {
            if op == 0 {
                assert_eq!(s.pop(), v.pop(), "step {i}");
            } else {
                s.push(op);
                v.push(op);
            }
            assert_eq!(s.as_slice(), &v[..], "step {i}");
            assert_eq!(
                (s.len(), s.is_empty(), s.last()),
                (v.len(), v.is_empty(), v.last())
            );
        }
        s.push(9);
        s.push(10);
        s.truncate(1);
        v.extend([9, 10]);
        v.truncate(1);
        assert_eq!(s.as_slice(), &v[..]);
        s.as_mut_slice()[0] = 11;
        assert_eq!(s.as_slice(), &[11]);
        let mut fresh: InlineStack<u32, 3> = InlineStack::default();
        fresh.push(1);
        fresh.push(2);
        fresh.truncate(1);
        assert_eq!(fresh.as_slice(), &[1]);
        assert_eq!((fresh.pop(), fresh.pop()), (Some(1), None));
    }
}
