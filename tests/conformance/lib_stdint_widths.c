/* stdint.h and limits.h with every width: int64_t, int16_t, uint8_t, uint32_t */
#include <stdio.h>
#include <stdint.h>
#include <limits.h>
int main(void) { int64_t a = INT64_MAX; uint8_t b = 300; int16_t c = 40000; uint32_t d = UINT32_MAX; printf("%ld %d %d %u %ld %d\n", a, b, c, d, LONG_MIN, SHRT_MAX); return 0; }
