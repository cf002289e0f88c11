/* escapes inside string literals and adjacent literal concatenation */
#include <stdio.h>
int main(void) {
    printf("tab\there\n");
    printf("quote\" backslash\\ percent%%\n");
    printf("con" "cat" "enated\n");
    printf("%s\n", "a\x41\102c");
    return 0;
}
