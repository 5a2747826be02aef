<?php

namespace App\Models;

use Illuminate\Support\Str;

const APP_VERSION = "1.0";

interface HasName
{
    public function getName(): string;
}

trait Greets
{
    public function greet(): string
    {
        return "hi " . $this->getName();
    }
}

class User extends Model implements HasName
{
    use Greets;

    const TABLE = "users";

    private string $name;

    public function __construct(string $name)
    {
        $this->name = $name;
    }

    public function getName(): string
    {
        return $this->name;
    }
}

enum Status: string
{
    case Active = "active";
}

function helper(int $x): int
{
    return $x * 2;
}
