package com.example;

import java.util.List;

public class Sample extends Base implements Runnable {
    public static final int MAX_COUNT = 10;
    private int count;

    public Sample(int count) {
        this.count = count;
    }

    @Override
    public void run() {
        System.out.println(count);
    }

    private static class Helper {
        int help(String name) {
            return name.length();
        }
    }

    interface Listener {
        void onEvent(String event);
    }

    enum Mode {
        FAST, SLOW;

        boolean isFast() {
            return this == FAST;
        }
    }
}

record Pair(int left, int right) {}
