/* A buffer declared after a block-scoped loop variable shares its frame word; the
   library's bounds check must see the buffer, not the loop variable that is gone. */
#include <stdio.h>
#include <string.h>
int main(void) {
    for (int i = 0; i < 2; i++) printf("%d ", i);
    int counts[10] = {0};
    counts[3]++;
    printf("%d\n", counts[3]);
    for (int k = 0; k < 1; k++) printf("k%d ", k);
    char buf[16];
    sprintf(buf, "%s-%d", "abc", 42);
    printf("%s\n", buf);
    for (int k = 0; k < 1; k++) printf("m%d ", k);
    int dst[5];
    int src[5] = {1, 2, 3, 4, 5};
    memcpy(dst, src, sizeof src);
    printf("%d %d\n", dst[0], dst[4]);
    {
        int t = 7;
        printf("%d\n", t);
    }
    char word[12];
    strcpy(word, "hello world");
    printf("%s\n", word);
    return 0;
}
