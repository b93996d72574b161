//! A map for the few keys a turn, a tool list or a JSON object nearly
//! always has: up to `N` entries held in place and found by comparing
//! keys, then all of them in a list with a hash index. A few keys are found
//! with one or two comparisons, faster than hashing one; held in place, a
//! copy allocates nothing; the index keeps many keys linear, and its keyed
//! hash keeps keys chosen to collide from making it quadratic.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;

/// A map in the order its keys were first inserted (as Java's
/// `LinkedHashMap`): [`SmallMap::insert`] of a present key replaces the
/// value where it stands.
#[derive(Debug, Clone)]
pub struct SmallMap<K, V, const N: usize>(Repr<K, V, N>);

#[derive(Debug, Clone)]
enum Repr<K, V, const N: usize> {
    /// The entries in order, then `None`s.
    Few([Option<(K, V)>; N]),
    /// More than `N`: the entries in order, and each key's position.
    Many {
        entries: Vec<(K, V)>,
        index: HashMap<K, usize>,
    },
}

impl<K, V, const N: usize> Default for SmallMap<K, V, N> {
    fn default() -> Self {
        SmallMap(Repr::Few(std::array::from_fn(|_| None)))
    }
}

impl<K: Eq + Hash + Clone, V, const N: usize> SmallMap<K, V, N> {
    /// The value of `key`.
    #[inline]
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        match &self.0 {
            Repr::Few(slots) => slots
                .iter()
                .map_while(Option::as_ref)
                .find(|(k, _)| k.borrow() == key)
                .map(|(_, v)| v),
            Repr::Many { entries, index } => index.get(key).map(|&i| &entries[i].1),
        }
    }

    /// The value of `key`, to change.
    #[inline]
    pub(crate) fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        match &mut self.0 {
            Repr::Few(slots) => slots
                .iter_mut()
                .map_while(Option::as_mut)
                .find(|(k, _)| (*k).borrow() == key)
                .map(|(_, v)| v),
            Repr::Many { entries, index } => index.get(key).map(|&i| &mut entries[i].1),
        }
    }

    /// Sets `key` to `value`: a present key keeps its place
    /// (`LinkedHashMap.put`), a new one goes last.
    pub fn insert(&mut self, key: K, value: V) {
        match &mut self.0 {
            Repr::Few(slots) => {
                for slot in slots.iter_mut() {
                    match slot {
                        Some((k, v)) if *k == key => {
                            *v = value;
                            return;
                        }
                        Some(_) => {}
                        None => {
                            *slot = Some((key, value));
                            return;
                        }
                    }
                }
                let mut entries: Vec<(K, V)> = slots.iter_mut().filter_map(Option::take).collect();
                entries.push((key, value));
                let index = entries
                    .iter()
                    .enumerate()
                    .map(|(i, (k, _))| (k.clone(), i))
                    .collect();
                self.0 = Repr::Many { entries, index };
            }
            Repr::Many { entries, index } => match index.get(&key) {
                Some(&i) => entries[i].1 = value,
                None => {
                    index.insert(key.clone(), entries.len());
                    entries.push((key, value));
                }
            },
        }
    }

    /// How many keys.
    pub(crate) fn len(&self) -> usize {
        match &self.0 {
            Repr::Few(slots) => slots.iter().map_while(Option::as_ref).count(),
            Repr::Many { entries, .. } => entries.len(),
        }
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        let (few, many) = match &self.0 {
            Repr::Few(slots) => (&slots[..], &[][..]),
            Repr::Many { entries, .. } => (&[][..], &entries[..]),
        };
        few.iter()
            .map_while(Option::as_ref)
            .chain(many)
            .map(|(k, v)| (k, v))
    }

    /// The entries in order, as a list.
    pub(crate) fn into_entries(self) -> Vec<(K, V)> {
        match self.0 {
            Repr::Few(slots) => slots.into_iter().map_while(|s| s).collect(),
            Repr::Many { entries, .. } => entries,
        }
    }
}

/// Equal when they hold the same entries in the same order.
impl<K: Eq + Hash + Clone, V: PartialEq, const N: usize> PartialEq for SmallMap<K, V, N> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<K: Eq + Hash + Clone, V: Eq, const N: usize> Eq for SmallMap<K, V, N> {}

#[cfg(test)]
mod tests {
    use super::SmallMap;

    #[test]
    fn keeps_first_positions_in_place_and_past_it() {
        // N = 2: the third key moves the entries to the list and index.
        let mut m: SmallMap<String, u32, 2> = SmallMap::default();
        for (i, k) in ["b", "a", "b", "c", "a", "d"].into_iter().enumerate() {
            m.insert(k.to_owned(), u32::try_from(i).unwrap());
        }
        let entries: Vec<(String, u32)> = m.clone().into_entries();
        let want = [("b", 2), ("a", 4), ("c", 3), ("d", 5)].map(|(k, v)| (k.to_owned(), v));
        assert_eq!(entries, want);
        assert_eq!((m.len(), m.get("a"), m.get("e")), (4, Some(&4), None));
        *m.get_mut("c").unwrap() += 10;
        assert_eq!(m.get("c"), Some(&13));
        let mut few: SmallMap<String, u32, 2> = SmallMap::default();
        few.insert("x".to_owned(), 1);
        assert_eq!(
            (few.len(), few.get("x"), few.iter().count()),
            (1, Some(&1), 1)
        );
        assert_eq!(few.clone(), few);
        assert_ne!(few, m);
    }
}
