/* Preprocessor forms real code uses: an operand of && || ?: that is not evaluated may
   divide by zero; #line and #include take macros; __COUNTER__; __has_include; gcc's
   __SIZE_TYPE__. */
#if 0 && (1 / 0)
#error not reached
#endif
#if !(1 || (1 % 0)) || (0 ? 1 / 0 : 0)
#error not reached
#endif
#include <stdio.h>
#define HEADER <string.h>
#include HEADER
#define LINE 1000
#line LINE
int at_line = __LINE__;
#if defined(__has_include) && __has_include(<stdio.h>) && !__has_include("no_such_file.h")
const char *has = "has_include works";
#else
const char *has = "has_include broken";
#endif
typedef __SIZE_TYPE__ my_size;

int main(void) {
    int a = __COUNTER__, b = __COUNTER__;
    my_size n = strlen("four");
    printf("%d %d %d %s %u\n", at_line, a, b, has, n);
    return 0;
}
