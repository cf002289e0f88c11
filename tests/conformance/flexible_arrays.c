/* Flexible array members (the struct's last member, sized by the allocation) and
   `extern T a[];` declared before the definition gives the size, at file and
   block scope. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vec {
    int n;
    double v[];
};

struct str {
    unsigned len;
    char s[];
};

extern int table[];
extern const char *names[];

static int total(void) {
    int s = 0;
    for (int i = 0; i < 4; i++) s += table[i];
    return s;
}

int table[4] = {1, 2, 3, 4};
const char *names[] = {"ada", "bob", "cy"};

static struct vec *make(int n) {
    struct vec *p = malloc(sizeof(struct vec) + n * sizeof(double));
    p->n = n;
    for (int i = 0; i < n; i++) p->v[i] = i * 1.5;
    return p;
}

static struct str *dup(const char *s) {
    struct str *p = malloc(sizeof(struct str) + strlen(s) + 1);
    p->len = strlen(s);
    strcpy(p->s, s);
    return p;
}

int main(void) {
    struct vec *p = make(5);
    double s = 0;
    for (int i = 0; i < p->n; i++) s += p->v[i];
    struct str *q = dup("flexible");
    printf("%d %.2f %u %s %c\n", p->n, s, q->len, q->s, q->s[q->len - 1]);
    {
        extern int table[];
        printf("%d %d %s\n", total(), table[3], names[2]);
    }
    free(p);
    free(q);
    return 0;
}
