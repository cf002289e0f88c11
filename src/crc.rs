//! CRC-32 (IEEE 802.3, as zlib and PNG use), the checksum of `.cod` files and run
//! records: [`crc32`] over a slice, [`Crc32`] piece by piece for streams of unbounded
//! length. Depends on nothing.

/// `TABLES[0]` is the classic byte table; `TABLES[k][b]` is the CRC register after byte
/// `b` followed by `k` zero bytes, so that eight bytes are folded in with eight
/// independent look-ups ("slicing by 8") instead of a chain of eight dependent ones.
const TABLES: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    t[0] = TABLE;
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[k - 1][i];
            t[k][i] = TABLE[(prev & 0xFF) as usize] ^ (prev >> 8);
            i += 1;
        }
        k += 1;
    }
    t
};

const TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

/// A CRC-32 in progress: reflected polynomial 0xEDB88320, initial value and final xor
/// 0xFFFFFFFF.
#[derive(Debug, Clone, Copy)]
pub struct Crc32 {
    state: u32,
}

impl Default for Crc32 {
    fn default() -> Self {
        Self::new()
    }
}

impl Crc32 {
    /// The checksum of no bytes.
    pub fn new() -> Self {
        Crc32 { state: 0xFFFF_FFFF }
    }

    /// Feeds `bytes` after everything fed so far.
    #[inline]
    pub fn update(&mut self, bytes: &[u8]) {
        let mut c = self.state;
        let mut chunks = bytes.chunks_exact(8);
        for w in &mut chunks {
            let lo = c ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            c = TABLES[7][(lo & 0xFF) as usize]
                ^ TABLES[6][((lo >> 8) & 0xFF) as usize]
                ^ TABLES[5][((lo >> 16) & 0xFF) as usize]
                ^ TABLES[4][(lo >> 24) as usize]
                ^ TABLES[3][w[4] as usize]
                ^ TABLES[2][w[5] as usize]
                ^ TABLES[1][w[6] as usize]
                ^ TABLES[0][w[7] as usize];
        }
        for &b in chunks.remainder() {
            c = TABLE[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8);
        }
        self.state = c;
    }

    /// The checksum of every byte fed so far.
    pub fn value(&self) -> u32 {
        self.state ^ 0xFFFF_FFFF
    }
}

/// The CRC-32 of `bytes` in one call.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = Crc32::new();
    c.update(bytes);
    c.value()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_value_of_the_standard() {
        // "123456789" → 0xCBF43926 is the check value published for CRC-32/ISO-HDLC.
        let mut c = Crc32::new();
        c.update(b"123456789");
        assert_eq!(c.value(), 0xCBF4_3926);
        // No bytes: initial value xor final xor = 0.
        assert_eq!(Crc32::new().value(), 0);
    }

    #[test]
    fn eight_bytes_at_a_time_agree_with_the_byte_table() {
        // The reference is the plain one-byte-per-step definition with the classic table;
        // every length 0..=70 exercises whole 8-byte blocks and every remainder.
        let data: Vec<u8> = (0..70u32).map(|i| (i * 151 + 7) as u8).collect();
        for n in 0..=data.len() {
            let mut r = 0xFFFF_FFFFu32;
            for &b in &data[..n] {
                r = TABLE[((r ^ b as u32) & 0xFF) as usize] ^ (r >> 8);
            }
            assert_eq!(crc32(&data[..n]), r ^ 0xFFFF_FFFF, "length {n}");
        }
    }

    #[test]
    fn pieces_give_the_one_shot_value_of_cod() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for split in [0, 1, 17, 500, 999, 1000] {
            let mut c = Crc32::new();
            c.update(&data[..split]);
            c.update(&data[split..]);
            assert_eq!(c.value(), crc32(&data), "split at {split}");
        }
    }
}
