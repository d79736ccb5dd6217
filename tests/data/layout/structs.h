/*
 * Structs for the layout tests (issue 25): written for reviewbot's tests, shaped like the kernel's
 * (bit-fields, anonymous unions, cache-line aligned members, arrays, flexible arrays, packed).
 * structs.c instantiates them; offsets.c prints where gcc puts each member.
 */
#include <stdint.h>
#include <stddef.h>

#define CACHELINE 64
#define ____cacheline_aligned __attribute__((__aligned__(CACHELINE)))
#define __packed __attribute__((__packed__))

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef struct { int counter; } atomic_t;
typedef struct { u32 raw; } spinlock_t;
struct list_head { struct list_head *next, *prev; };
struct hlist_node { struct hlist_node *next, **pprev; };
struct callback_head { struct callback_head *next; void (*func)(struct callback_head *head); };

struct s01_plain { char a; int b; char c; long d; };
struct s02_ptrs { void *p; char c; struct list_head list; u16 w; };
struct s03_bits { unsigned int a:3, b:5; u8 c; unsigned long d:40; unsigned int e:1; };
struct s04_bits_zero { u8 a:4; unsigned int :0; u8 b:2; u16 c; };
struct s05_anon_union { int kind; union { long l; char s[12]; struct { u16 lo, hi; }; }; u8 tail; };
struct s06_nested_anon { u64 x; struct { u8 a; union { u32 b; u16 c[3]; }; }; char z; };
struct s07_aligned { char c; atomic_t refs ____cacheline_aligned; spinlock_t lock; u64 hot; };
struct s08_array { u8 small[3]; u32 words[5]; char name[16]; u64 last; };
struct s09_flex { u32 len; u16 flags; u8 data[]; };
struct s10_packed { u8 a; u32 b; u16 c; u64 d; } __packed;
struct s11_packed_member { u8 a; struct s10_packed inner; u32 b; };
struct s12_funcs { int (*open)(void *); void (*release)(void *, int); u8 owner; };
struct s13_deep { struct s05_anon_union u; struct s07_aligned al; u8 after; };
struct s14_cacheline_groups {
	u8 __cacheline_group_begin__read[0];
	void *rx;
	u32 seq;
	u8 __cacheline_group_end__read[0];
	u8 __cacheline_group_begin__write[0] ____cacheline_aligned;
	atomic_t writers;
	u8 __cacheline_group_end__write[0];
};
struct s15_big { struct list_head list; u64 a[9]; atomic_t cnt; spinlock_t lock; struct hlist_node node; char tail; };
struct s16_bool_bits { _Bool on:1; _Bool off:1; u8 rest:6; u32 word; };
struct s17_long_double { char c; long double ld; u8 after; };
struct s18_union_outer_in { union { u64 a; u8 b[20]; } named; u8 z; };
struct s19_u128 { u8 a; __int128 big; u8 b; };
struct s20_enum { enum { E_A, E_B } e; u8 c; enum { F_A = 0x100000000ULL } f; };
struct s21_rcu { struct callback_head rcu; struct hlist_node hash; u32 key; u8 dead:1; u8 busy:1; };
struct s22_aligned_struct { u8 a; } ____cacheline_aligned;
struct s23_contains_aligned { u8 first; struct s22_aligned_struct g; u8 last; };
struct s24_union_bits { union { u32 all; struct { u32 lo:12, mid:8, hi:12; }; }; u16 tag; };
