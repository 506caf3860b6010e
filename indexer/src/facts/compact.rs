//! [`CompactVec`]: a list of facts that costs one word when it is empty.
//!
//! A product's skeletons (`pipeline::skeleton`) stay in memory for the whole index run,
//! one [`super::MethodDecl`] per method of the product. A skeleton keeps a method's
//! signature and drops its body (locals, call sites, literals, expression trees), so most
//! of a skeleton method's lists are empty — yet a `Vec` header is three words whatever it
//! holds, and those empty headers were most of a skeleton's size. A `CompactVec` keeps its
//! length and capacity in its heap buffer ([`thin_vec::ThinVec`]): an empty one is a
//! single pointer and allocates nothing. A non-empty one costs the same as a `Vec`, so it is
//! meant for the lists that are usually empty.
//!
//! It encodes exactly as a `Vec` does (a length, then the items), so the facts cache reads
//! entries written with either.

use std::ops::{Deref, DerefMut};

use bincode::{BorrowDecode, Decode};
use thin_vec::ThinVec;

/// A `Vec` whose length and capacity live in its heap buffer (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CompactVec<T>(ThinVec<T>);

impl<T> CompactVec<T> {
    /// An empty list (no allocation).
    pub(crate) fn new() -> Self {
        CompactVec(ThinVec::new())
    }
}

impl<T> Default for CompactVec<T> {
    fn default() -> Self {
        CompactVec::new()
    }
}

impl<T> Deref for CompactVec<T> {
    type Target = ThinVec<T>;
    fn deref(&self) -> &ThinVec<T> {
        &self.0
    }
}

impl<T> DerefMut for CompactVec<T> {
    fn deref_mut(&mut self) -> &mut ThinVec<T> {
        &mut self.0
    }
}

impl<T> From<Vec<T>> for CompactVec<T> {
    fn from(items: Vec<T>) -> Self {
        CompactVec(ThinVec::from(items))
    }
}

impl<T> FromIterator<T> for CompactVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        CompactVec(iter.into_iter().collect())
    }
}

impl<'a, T> IntoIterator for &'a CompactVec<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut CompactVec<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

impl<T: bincode::Encode> bincode::Encode for CompactVec<T> {
    fn encode<E: bincode::enc::Encoder>(&self, encoder: &mut E) -> Result<(), bincode::error::EncodeError> {
        self.0.as_slice().encode(encoder)
    }
}

impl<Context, T: Decode<Context>> Decode<Context> for CompactVec<T> {
    fn decode<D: bincode::de::Decoder<Context = Context>>(
        decoder: &mut D,
    ) -> Result<Self, bincode::error::DecodeError> {
        // Read as a `Vec`, then moved into a thin buffer (an empty list allocates nothing).
        Ok(CompactVec::from(Vec::<T>::decode(decoder)?))
    }
}

impl<'de, Context, T: BorrowDecode<'de, Context>> BorrowDecode<'de, Context> for CompactVec<T> {
    fn borrow_decode<D: bincode::de::BorrowDecoder<'de, Context = Context>>(
        decoder: &mut D,
    ) -> Result<Self, bincode::error::DecodeError> {
        Ok(CompactVec::from(Vec::<T>::borrow_decode(decoder)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_empty_list_is_one_word() {
        assert_eq!(
            std::mem::size_of::<CompactVec<String>>(),
            std::mem::size_of::<usize>()
        );
    }

    proptest! {
        /// A list encodes to the bytes of the `Vec` it holds, and decodes back to it, so
        /// cached facts read the same whichever of the two wrote them.
        #[test]
        fn encodes_as_a_vec(items in proptest::collection::vec("[a-z]{0,6}", 0..8)) {
            let config = bincode::config::standard();
            let compact = CompactVec::from(items.clone());
            let bytes = bincode::encode_to_vec(&compact, config).expect("a list encodes");
            prop_assert_eq!(&bytes, &bincode::encode_to_vec(&items, config).expect("a vec encodes"));
            let (back, read): (CompactVec<String>, usize) = bincode::decode_from_slice(&bytes, config).expect("its own bytes decode");
            prop_assert_eq!(read, bytes.len());
            prop_assert_eq!(back.as_slice(), items.as_slice());
        }
    }
}
