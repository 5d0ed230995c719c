"""One APIRouter per resource: games, bots (levels), calculator, ws, pages."""
