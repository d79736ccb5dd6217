/* Instantiates every struct of structs.h, so gcc emits their type information. */
#include "structs.h"

struct s01_plain v01; struct s02_ptrs v02; struct s03_bits v03; struct s04_bits_zero v04;
struct s05_anon_union v05; struct s06_nested_anon v06; struct s07_aligned v07; struct s08_array v08;
struct s09_flex v09; struct s10_packed v10; struct s11_packed_member v11; struct s12_funcs v12;
struct s13_deep v13; struct s14_cacheline_groups v14; struct s15_big v15; struct s16_bool_bits v16;
struct s17_long_double v17; struct s18_union_outer_in v18; struct s19_u128 v19; struct s20_enum v20;
struct s21_rcu v21; struct s22_aligned_struct v22; struct s23_contains_aligned v23; struct s24_union_bits v24;
struct list_head v25; struct hlist_node v26; struct callback_head v27;
