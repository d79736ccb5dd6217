/*
 * Prints "STRUCT MEMBER BIT_OFFSET BIT_SIZE SIZEOF" for each member of structs.h as gcc lays it out:
 * offsetof() for members, and for a bit-field the position of its bits found by setting it to all ones in
 * a zeroed struct (little-endian: bit k of byte n is bit 8n+k).
 */
#include <stdio.h>
#include <string.h>
#include "structs.h"

#define M(S, F) printf("%s %s %zu 0 %zu\n", #S, #F, offsetof(struct S, F) * 8, sizeof(struct S));
#define B(S, F) do { \
	struct S v; unsigned char *p = (unsigned char *)&v; size_t i, first = (size_t)-1, n = 0; \
	memset(&v, 0, sizeof(v)); v.F = ~0ULL; \
	for (i = 0; i < sizeof(v) * 8; i++) \
		if (p[i / 8] >> (i % 8) & 1) { if (first == (size_t)-1) first = i; n++; } \
	printf("%s %s %zu %zu %zu\n", #S, #F, first, n, sizeof(struct S)); \
} while (0);

int main(void)
{
	M(s01_plain, a) M(s01_plain, b) M(s01_plain, c) M(s01_plain, d)
	M(s02_ptrs, p) M(s02_ptrs, c) M(s02_ptrs, list) M(s02_ptrs, w)
	B(s03_bits, a) B(s03_bits, b) M(s03_bits, c) B(s03_bits, d) B(s03_bits, e)
	B(s04_bits_zero, a) B(s04_bits_zero, b) M(s04_bits_zero, c)
	M(s05_anon_union, kind) M(s05_anon_union, l) M(s05_anon_union, s) M(s05_anon_union, lo)
	M(s05_anon_union, hi) M(s05_anon_union, tail)
	M(s06_nested_anon, x) M(s06_nested_anon, a) M(s06_nested_anon, b) M(s06_nested_anon, c) M(s06_nested_anon, z)
	M(s07_aligned, c) M(s07_aligned, refs) M(s07_aligned, lock) M(s07_aligned, hot)
	M(s08_array, small) M(s08_array, words) M(s08_array, name) M(s08_array, last)
	M(s09_flex, len) M(s09_flex, flags) M(s09_flex, data)
	M(s10_packed, a) M(s10_packed, b) M(s10_packed, c) M(s10_packed, d)
	M(s11_packed_member, a) M(s11_packed_member, inner) M(s11_packed_member, b)
	M(s12_funcs, open) M(s12_funcs, release) M(s12_funcs, owner)
	M(s13_deep, u) M(s13_deep, al) M(s13_deep, after)
	M(s14_cacheline_groups, __cacheline_group_begin__read) M(s14_cacheline_groups, rx)
	M(s14_cacheline_groups, seq) M(s14_cacheline_groups, __cacheline_group_end__read)
	M(s14_cacheline_groups, __cacheline_group_begin__write) M(s14_cacheline_groups, writers)
	M(s14_cacheline_groups, __cacheline_group_end__write)
	M(s15_big, list) M(s15_big, a) M(s15_big, cnt) M(s15_big, lock) M(s15_big, node) M(s15_big, tail)
	B(s16_bool_bits, on) B(s16_bool_bits, off) B(s16_bool_bits, rest) M(s16_bool_bits, word)
	M(s17_long_double, c) M(s17_long_double, ld) M(s17_long_double, after)
	M(s18_union_outer_in, named) M(s18_union_outer_in, z)
	M(s19_u128, a) M(s19_u128, big) M(s19_u128, b)
	M(s20_enum, e) M(s20_enum, c) M(s20_enum, f)
	M(s21_rcu, rcu) M(s21_rcu, hash) M(s21_rcu, key) B(s21_rcu, dead) B(s21_rcu, busy)
	M(s22_aligned_struct, a)
	M(s23_contains_aligned, first) M(s23_contains_aligned, g) M(s23_contains_aligned, last)
	M(s24_union_bits, all) B(s24_union_bits, lo) B(s24_union_bits, mid) B(s24_union_bits, hi) M(s24_union_bits, tag)
	M(list_head, next) M(list_head, prev) M(hlist_node, next) M(hlist_node, pprev)
	M(callback_head, next) M(callback_head, func)
	return 0;
}
