package com.example

import kotlin.math.max

const val MAX_USERS = 100

typealias Callback = (String) -> Unit

interface Repository {
    fun find(id: String): User?
}

data class User(val id: String, val name: String)

class UserService(private val repo: Repository) : Service {
    fun load(id: String): User? {
        return repo.find(id)
    }

    companion object {
        fun create(): UserService = UserService(InMemory())
    }
}

object Registry {
    fun register(name: String) {}
}

enum class Role { ADMIN, USER }

fun topLevel(x: Int): Int = max(x, 0)
