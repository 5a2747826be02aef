#include <stdio.h>
#ifndef SAMPLE_H
#define SAMPLE_H
#define BUFFER_SIZE 1024
#define SQUARE(x) ((x) * (x))

typedef struct {
    int x;
    int y;
} point_t;

struct node {
    int value;
    struct node *next;
};

enum color { RED, GREEN };

typedef unsigned long size_type;

static int counter = 0;

int add(int a, int b);

static int
add(int a, int b)
{
    return a + b;
}

char *copy_name(const char *name, size_t len) {
    return NULL;
}
#endif
